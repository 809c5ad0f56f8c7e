"""The report's pictures, each a function from the run's JSON to an SVG string
(or None when the run holds nothing to draw)."""

import io
import math

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402

matplotlib.rcParams.update({"svg.fonttype": "none", "font.size": 9, "axes.grid": True, "grid.alpha": 0.3,
                            "svg.hashsalt": "jitbench"})  # stable SVG ids: identical runs, identical pages

PHASE_COLORS = {"import": "#9e9e9e", "setup": "#c7c7c7", "residual": "#4c72b0"}


def _svg(fig):
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    text = buf.getvalue()
    text = text[text.index("<svg"):]  # drop the XML prolog: the SVG is inlined
    start, end = text.find("<metadata>"), text.find("</metadata>")
    if start >= 0 and end > start:  # RDF boilerplate: not needed to draw
        text = text[:start] + text[end + len("</metadata>"):]
    return text


def ttfr_by_phase(cases, analysis):
    """Stacked bars: import, setup, each compile phase, residual; one bar per case."""
    by_case = {c["case"]: c for c in analysis["cases"]}
    rows = []
    for c in cases:
        s = c["cold"]["summary"]
        if c["status"] != "ok" or not s.get("ttfr_s"):
            continue
        parts = [("import", (s.get("import_s") or {}).get("median", 0.0)),
                 ("setup", (s.get("setup_s") or {}).get("median", 0.0))]
        fc = (by_case.get(c["case"]) or {}).get("first_call") or {}
        phases = fc.get("phases_median_s") or {}
        # The framework's own order (trace, lower, compile), not the JSON's alphabetical one.
        runs = c["cold"]["runs"]
        declared = ((runs[0].get("worker") or {}).get("first_call") or {}).get("phase_names", []) if runs else []
        order = [n for n in declared if n in phases] + [n for n in phases if n not in declared]
        parts += [(name, phases[name]) for name in order]
        first = (s.get("first_call_s") or {}).get("median", 0.0)
        parts.append(("residual", max(first - sum(phases.values()), 0.0)))
        rows.append((c["case"], parts))
    if not rows:
        return None
    names = []
    for _, parts in rows:
        for n, _ in parts:
            if n not in names and n != "residual":
                names.append(n)
    names.append("residual")  # always the last segment: what the phases do not cover
    cmap = plt.get_cmap("tab10")
    colors = {n: PHASE_COLORS.get(n, cmap(i % 10)) for i, n in enumerate(names)}
    fig, ax = plt.subplots(figsize=(9, 0.28 * len(rows) + 1.2))
    labels = [r[0] for r in rows]
    left = [0.0] * len(rows)
    for n in names:
        vals = [dict(parts).get(n, 0.0) for _, parts in rows]
        ax.barh(labels, vals, left=left, color=colors[n], label=n)
        left = [a + b for a, b in zip(left, vals)]
    ax.invert_yaxis()
    ax.set_xlabel("cold time to first result, median (s)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=7)  # beside the bars, never over them
    return _svg(fig)


def warm_distributions(cases):
    rows = [(c["case"], c["warm"]["calls_s"]) for c in cases
            if c["status"] == "ok" and c.get("warm") and c["warm"].get("calls_s")]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(9, 0.28 * len(rows) + 1.2))
    ax.boxplot([r[1] for r in rows], vert=False, tick_labels=[r[0] for r in rows], showfliers=True)
    ax.set_xscale("log")
    ax.invert_yaxis()
    ax.set_xlabel("warm call (s, log scale); box = quartiles, whiskers 1.5 IQR")
    return _svg(fig)


def break_even(analysis):
    rows = [b for b in analysis["break_even"] if b["warm_jit_s"] > 0]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(9, 4.5))
    max_n = max([b["calls"] for b in rows if b["calls"]] + [10]) * 2
    ns = [0] + [math.ceil(max_n * i / 200) for i in range(1, 201)]
    drawn_eager = set()
    for i, b in enumerate(rows):
        color = plt.get_cmap("tab10")(i % 10)
        ax.plot(ns, [b["ttfr_jit_s"] + n * b["warm_jit_s"] for n in ns], color=color, label=b["jit_case"])
        if b["eager_case"] not in drawn_eager:
            drawn_eager.add(b["eager_case"])
            ax.plot(ns, [b["ttfr_eager_s"] + n * b["warm_eager_s"] for n in ns], color=color, linestyle="--",
                    label=f"{b['eager_case']} (eager)")
        if b["verdict"] == "calls" and b["calls"] is not None:
            n = b["calls"]
            ax.plot([n], [b["ttfr_jit_s"] + n * b["warm_jit_s"]], marker="o", color=color)
            ax.annotate(f"N*={n:.0f}", (n, b["ttfr_jit_s"] + n * b["warm_jit_s"]), fontsize=7,
                        xytext=(4, -10), textcoords="offset points")
    ax.set_xlabel("number of calls after the first")
    ax.set_ylabel("total time (s) = TTFR + N x warm call")
    ax.legend(fontsize=6, ncol=2)
    return _svg(fig)


def _lines(points, x_key, y_key, xlabel, ylabel, logx=True, logy=True, title_key="backend"):
    series = {}
    for p in points:
        if p.get(x_key) is None or p.get(y_key) is None:
            continue
        series.setdefault(p[title_key], []).append((p[x_key], p[y_key], p))
    if not series:
        return None
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, pts in sorted(series.items()):
        pts.sort(key=lambda t: t[0])
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=7)
    return _svg(fig)


def mc_pi_error_vs_time(analysis):
    pts = [a for a in analysis["accuracy"] if a["abs_error"] and a["abs_error"] > 0]
    return _lines(pts, "warm_median_s", "abs_error", "warm call (s)", "|pi - estimate|")


def rnn_compile_curve(analysis):
    pts = []
    for row in analysis["pairs"]:
        if row["pair"] != "rnn":
            continue
        for v in row["variants"]:
            pts.append({"n": row["n"], "compile": v["compile_median_s"], "variant": v["workload"]})
    return _lines(pts, "n", "compile", "sequence length (unrolled steps)", "compile time, median (s)",
                  title_key="variant")


def remat_memory(analysis):
    rows = []
    for row in analysis["pairs"]:
        if row["pair"] != "remat":
            continue
        for v in row["variants"]:
            rows.append((f"{v['workload']} n={row['n']}", v["compiled_temp_bytes"], v["first_call_rss_growth_kib_median"],
                         v["warm_median_s"]))
    if not rows:
        return None
    fig, axes = plt.subplots(1, 3, figsize=(10, 0.35 * len(rows) + 1.5))
    labels = [r[0] for r in rows]
    for ax, idx, label, scale in ((axes[0], 1, "XLA temp buffers (MiB)", 1 / 1048576),
                                  (axes[1], 2, "peak RSS growth, first call (MiB)", 1 / 1024),
                                  (axes[2], 3, "warm call (ms)", 1000)):
        ax.barh(labels, [(r[idx] or 0) * scale for r in rows], color="#55a868")
        ax.set_xlabel(label)
        ax.invert_yaxis()
    for ax in axes[1:]:
        ax.set_yticklabels([])
    return _svg(fig)
