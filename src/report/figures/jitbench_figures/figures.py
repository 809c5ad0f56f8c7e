"""The report's pictures, each a function from the figure data jitbench
computed (src/export/docs/figure_data.cc) to an SVG string, or None when there is
nothing to draw."""

import html
import io
import math

import matplotlib
import matplotlib.colors
import matplotlib.patches

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import EngFormatter, LogFormatter, NullFormatter  # noqa: E402

# text.parse_math off: labels come from users (--machine, workload and case
# names) and are text, never mathtext ("$\\foo{$" would stop every figure).
matplotlib.rcParams.update({"svg.fonttype": "none", "font.size": 9, "axes.grid": True, "grid.alpha": 0.3,
                            "svg.hashsalt": "jitbench",  # stable SVG ids: identical runs, identical pages
                            "text.parse_math": False, "text.usetex": False})

PHASE_COLORS = {"import": "#9e9e9e", "setup": "#c7c7c7", "unattributed": "#e8e0c8"}  # unattributed: pale, hatched
# Compile phases: saturated colours, none grey (import and setup are), none
# repeated below 12 phases.
COMPILE_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
                  "#bcbd22", "#393b79", "#637939", "#843c39"]


WARN_COLOR = "#d62728"


def _units(axis, unit="s"):
    """Engineering units on a time (or count) axis: 100 µs, 20 ms, 1.5 s;
    1 k, 10 k for counts (unit ""). Minor log ticks stay unlabelled."""
    axis.set_major_formatter(EngFormatter(unit=unit, places=None, sep="\N{THIN SPACE}" if unit else ""))
    axis.set_minor_formatter(NullFormatter())


def _warn_label(name, warn):
    return f"\u26a0 {name} (warn: {warn})" if warn else name


def _label_every_axis(fig):
    """A log axis spanning less than a decade shows no major tick, and its minor
    ticks are unlabelled: such an axis gets its minor ticks labelled in the
    major ticks' units, so that no axis is drawn without numbers."""
    fig.draw_without_rendering()  # the ticks and their labels as the axes' limits place them
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        for axis, lim in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
            if axis.get_scale() != "log":
                continue  # a linear axis always has labelled major ticks
            lo, hi = sorted(lim)
            shown = [t for t, loc in zip(axis.get_ticklabels(), axis.get_majorticklocs())
                     if t.get_text() and lo <= loc <= hi]
            if len(shown) < 2 and isinstance(axis.get_major_formatter(), EngFormatter):
                axis.set_minor_formatter(EngFormatter(unit=axis.get_major_formatter().unit, places=None,
                                                      sep=axis.get_major_formatter().sep))


def _declutter(fig):
    """No two tick labels of an axis overlap: where they would ("9 ms10 ms"),
    the later one (minor after major, then left to right) is not drawn."""
    fig.draw_without_rendering()
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        for axis in (ax.xaxis, ax.yaxis):
            kept = []
            ticks = [t for t in axis.get_major_ticks() + axis.get_minor_ticks()]
            for tick in ticks:
                for label in (tick.label1, tick.label2):
                    if not label.get_visible() or not label.get_text():
                        continue
                    box = label.get_window_extent().expanded(1.05, 1.0)
                    if not ax.get_window_extent().expanded(1.5, 1.5).overlaps(box):
                        continue  # off the axes: matplotlib draws it nowhere
                    if any(box.overlaps(k) for k in kept):
                        label.set_visible(False)
                    else:
                        kept.append(box)


def _svg(fig):
    _label_every_axis(fig)
    _declutter(fig)
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    text = buf.getvalue()
    text = text[text.index("<svg"):]  # drop the XML prolog: the SVG is inlined
    start, end = text.find("<metadata>"), text.find("</metadata>")
    if start >= 0 and end > start:  # RDF boilerplate: not needed to draw
        text = text[:start] + text[end + len("</metadata>"):]
    return text


def ttfr_by_phase(data):
    """Stacked bars: import, setup, each compile phase, unattributed; one bar per case."""
    rows = [(r["case"], [tuple(p) for p in r["parts"]]) for r in data["ttfr"]]
    if not rows:
        return None
    names = []
    for _, parts in rows:
        for n, _ in parts:
            if n not in names and n != "unattributed":
                names.append(n)
    names = [n for n in names if any(dict(parts).get(n, 0.0) > 0 for _, parts in rows)]  # no empty legend entries
    names.append("unattributed")  # always the last segment: what no phase covers
    phase_names = [n for n in names if n not in PHASE_COLORS]
    colors = {n: PHASE_COLORS.get(n) or COMPILE_COLORS[phase_names.index(n) % len(COMPILE_COLORS)] for n in names}
    warn = [r.get("warn") for r in data["ttfr"]]
    fig, ax = plt.subplots(figsize=(9, 0.28 * len(rows) + 1.2))
    labels = [_warn_label(r[0], w) for r, w in zip(rows, warn)]
    ys = list(range(len(rows)))
    left = [0.0] * len(rows)
    for n in names:
        vals = [dict(parts).get(n, 0.0) for _, parts in rows]
        ax.barh(ys, vals, left=left, color=colors[n], label=n if n != "unattributed" else "unattributed (no phase covers it)",
                hatch="//" if n == "unattributed" else None, edgecolor="#b0a890" if n == "unattributed" else None,
                linewidth=0)
        left = [a + b for a, b in zip(left, vals)]
    for i, w in enumerate(warn):  # a warn case: its whole bar outlined, its label red
        if w:
            ax.barh([i], [left[i]], fill=False, edgecolor=WARN_COLOR, linewidth=1.5, linestyle="--")
    ax.set_yticks(ys, labels)
    for tick, w in zip(ax.get_yticklabels(), warn):
        if w:
            tick.set_color(WARN_COLOR)
    ax.invert_yaxis()
    _units(ax.xaxis)
    ax.set_xlabel("cold time to first result, median")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=7)  # beside the bars, never over them
    return _svg(fig)


def warm_distributions(data):
    rows = [(_warn_label(r["case"], r.get("warn")), r["calls_s"], r.get("warn")) for r in data["warm"]]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(9, 0.28 * len(rows) + 1.2))
    boxes = ax.boxplot([r[1] for r in rows], orientation="horizontal", tick_labels=[r[0] for r in rows], showfliers=True,
                       patch_artist=True)
    for box, r in zip(boxes["boxes"], rows):
        box.set_facecolor("#f4cccc" if r[2] else "#dde8f3")
        box.set_edgecolor(WARN_COLOR if r[2] else "black")
    for tick, r in zip(ax.get_yticklabels(), rows):
        if r[2]:
            tick.set_color(WARN_COLOR)
    ax.set_xscale("log")
    _units(ax.xaxis)
    lo, hi = ax.get_xlim()
    if hi < 30 * lo:  # less than about a decade: one major tick at most, so label the minor ones too
        ax.xaxis.set_minor_formatter(EngFormatter(unit="s", places=None, sep="\N{THIN SPACE}"))
        ax.tick_params(axis="x", which="minor", labelsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("warm call (log scale); box = quartiles, whiskers 1.5 IQR")
    return _svg(fig)


def break_even(data):
    """Small multiples, one panel per workload and size, log-log: total time
    after N further calls for each JIT (solid) and its eager baseline (dashed),
    N* marked where the lines cross."""
    rows = data["break_even"]
    if not rows:
        return None
    panels = {}
    for b in rows:
        panels.setdefault(b["work"], []).append(b)
    names = sorted({b["jit"] for b in rows} | {b["eager"] for b in rows})
    color = {n: plt.get_cmap("tab10")(i % 10) for i, n in enumerate(names)}
    # One full-width panel per piece of work, its legend to the right of the lines.
    fig, axes = plt.subplots(len(panels), 1, figsize=(10, 3.4 * len(panels)), squeeze=False)
    for ax, (title, bs) in zip(axes.flat, panels.items()):
        _break_even_panel(ax, title, bs, color)
    fig.tight_layout()
    return _svg(fig)


def _n_star_label(b):
    """N* as summary.md says it: a whole number of calls, or never."""
    if b["verdict"] == "calls" and b.get("calls"):
        return f"N* = {b['calls']:.0f}"
    ahead = b.get("ahead_until_call")
    return "N* = never" + (f" (no slower through call {ahead:.0f}, then eager catches up)" if ahead else "")


def _break_even_panel(ax, title, bs, color):
    finite = [b["calls"] for b in bs if b["verdict"] == "calls" and b["calls"]]
    x_max = min(max([10 * n for n in finite] + [100]), 1e7)
    ns = [10 ** (i * math.log10(x_max) / 100) for i in range(101)]  # 1 ... x_max calls
    eager_drawn = set()
    for b in bs:
        jb, eb = b["jit"], b["eager"]
        if eb not in eager_drawn:
            eager_drawn.add(eb)
            ax.plot(ns, [b["ttfr_eager_s"] + (n - 1) * b["warm_eager_s"] for n in ns], color=color[eb],
                    linestyle="--", label=f"{eb} (eager)")
        n_star = b["calls"] if b["verdict"] == "calls" else None
        label = f"{jb} ({_n_star_label(b)}{', off the axis' if n_star is not None and n_star > x_max else ''})"
        ax.plot(ns, [b["ttfr_jit_s"] + (n - 1) * b["warm_jit_s"] for n in ns], color=color[jb], label=label)
        if n_star is not None and 1 <= n_star <= x_max:
            ax.plot([n_star], [b["ttfr_jit_s"] + (n_star - 1) * b["warm_jit_s"]], marker="o", color=color[jb],
                    markeredgecolor="black")
    ax.set_xscale("log")
    ax.set_yscale("log")
    _units(ax.xaxis, "")
    _units(ax.yaxis)
    ax.set_title(title, fontsize=9, loc="left")
    ax.set_xlabel("calls, the first included", fontsize=8)
    ax.set_ylabel("total time", fontsize=8)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)


def _lines(points, x_key, y_key, xlabel, ylabel, logx=True, logy=True, title_key="backend", as_figure=False,
           units=(None, None)):
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
    for axis, unit, log in zip((ax.xaxis, ax.yaxis), units, (logx, logy)):
        if unit is not None:
            _units(axis, unit)
        elif log:  # matplotlib's default log labels are mathtext, which text.parse_math off prints raw
            axis.set_major_formatter(LogFormatter())
            axis.set_minor_formatter(NullFormatter())
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=7)
    return fig if as_figure else _svg(fig)


def mc_pi_error_vs_time(data):
    pts = [a for a in data["accuracy"] if a["abs_error"] and a["abs_error"] > 0]
    fig = _lines(pts, "warm_median_s", "abs_error", "warm call", "|pi - estimate|", as_figure=True, units=("s", None))
    if fig is None:
        return None
    # Every backend counts the same points (up to float32 rounding of
    # x^2 + y^2 on the circle's edge: a few points in 1e8), so each n has one
    # error level for all of them: name the levels on the right-hand axis.
    levels = {}
    for a in pts:
        levels.setdefault(a["n"], []).append(a["abs_error"])
    ax = fig.axes[0]
    if all(max(v) <= min(v) * 1.01 for v in levels.values()):
        right = ax.twinx()
        right.set_yscale("log")
        right.set_ylim(ax.get_ylim())
        right.set_yticks([sorted(v)[len(v) // 2] for v in levels.values()])
        right.set_yticklabels([f"n = {n:.0e}".replace("e+0", "e") for n in levels])
        right.minorticks_off()
        right.grid(False)
    return _svg(fig)


def rnn_compile_curve(data):
    return _lines(data["rnn"], "n", "compile", "sequence length (unrolled steps)", "compile time, median",
                  title_key="variant", units=("", "s"))


def remat_memory(data):
    rows = [(r["label"], r["temp_bytes"], r["rss_growth_kib"], r["warm_s"]) for r in data["remat"]]
    if not rows:
        return None
    fig, axes = plt.subplots(1, 3, figsize=(10, 0.35 * len(rows) + 1.5))
    labels = [r[0] for r in rows]
    for ax, idx, label, scale in ((axes[0], 1, "XLA temp buffers (MiB)", 1 / 1048576),
                                  (axes[1], 2, "peak RSS growth, first call (MiB)", 1 / 1024),
                                  (axes[2], 3, "warm call", 1)):
        ax.barh(labels, [(r[idx] or 0) * scale for r in rows], color="#55a868")
        if idx == 3:
            _units(ax.xaxis)
        ax.set_xlabel(label)
        ax.invert_yaxis()
    for ax in axes[1:]:
        ax.set_yticklabels([])
    return _svg(fig)


RELEASE_LABELS = {"cold_import_s": "import", "cold_first_call_s": "first call", "cold_ttfr_s": "TTFR",
                  "warm_call_s": "warm call"}
RELEASE_COLS = 4


def _release_label(metric):
    """cold_ttfr_s -> TTFR; phase_compile_s -> compile (phase)."""
    if metric in RELEASE_LABELS:
        return RELEASE_LABELS[metric]
    return metric.removeprefix("phase_").removesuffix("_s") + " (phase)"


def _has_data(row, key):
    """A metric with a measured value in some environment (a phase no release reported, such as cache_load
    in a run without a warm cache, has none): a panel without one is left out."""
    return any(p and p.get("median") for p in row["metrics"].get(key) or [])


def releases(data):
    """A block per case, a panel per metric with data (every phase included), four to a row."""
    rows = data.get("releases", [])
    blocks = [(row, [m for m in row.get("metric_order") or list(row["metrics"]) if _has_data(row, m)]) for row in rows]
    blocks = [(row, metrics) for row, metrics in blocks if metrics]
    if not blocks:
        return None
    heights = [math.ceil(len(m) / RELEASE_COLS) for _, m in blocks]
    fig, axes = plt.subplots(sum(heights), RELEASE_COLS, figsize=(11, 2.4 * sum(heights) + 0.4), squeeze=False)
    top = 0
    for (row, metrics), h in zip(blocks, heights):
        for c in range(h * RELEASE_COLS):
            ax = axes[top + c // RELEASE_COLS][c % RELEASE_COLS]
            if c >= len(metrics):
                ax.set_visible(False)
                continue
            _release_panel(ax, row, metrics[c], c == 0)
        top += h
    fig.tight_layout()
    return _svg(fig)


def _release_panel(ax, row, key, first):
    envs = row["environments"]
    pts = [(i, p) for i, p in enumerate(row["metrics"][key]) if p]
    if pts:
        xs = [i for i, _ in pts]
        med = [p["median"] for _, p in pts]
        err = [[p["median"] - p["lo"] for _, p in pts], [p["hi"] - p["median"] for _, p in pts]]
        ax.errorbar(xs, med, yerr=err, fmt="o-", color="#1f77b4", ms=3, lw=1, capsize=2)
        steps = [(i, p["median"]) for i, p in pts if p["significant_step"]]
        if steps:
            ax.scatter([i for i, _ in steps], [m for _, m in steps], s=80, facecolors="none",
                       edgecolors=WARN_COLOR, linewidths=1.5, zorder=3)
    ax.set_xticks(range(len(envs)))
    ax.set_xticklabels(envs, rotation=30, ha="right", fontsize=7)
    label = _release_label(key)
    ax.set_title(f"{row['key']}: {label}" if first else label, fontsize=8, loc="left")
    ax.set_ylim(bottom=0)
    _units(ax.yaxis)


ICICLE_ROW_IN = 0.42  # one level of the tree
ICICLE_LEFT_IN, ICICLE_WIDTH_IN = 1.9, 8.0  # the level labels, then the boxes
ICICLE_FONT = 7
ICICLE_CHAR_PT = 0.62 * ICICLE_FONT  # a character's width, generous for DejaVu Sans
OTHER_COLOR = "#c7c7c7"


def _seconds(v):
    """A duration in engineering units to 3 significant digits (pages.value writes the same)."""
    a = abs(v)
    if a == 0:
        return "0 s"
    scale, unit = (1, "s") if a >= 1 else (1e3, "ms") if a >= 1e-3 else (1e6, "µs")
    return f"{v * scale:.3g} {unit}"


def _lighter(color, depth):
    """A phase's colour for its items `depth` levels down: mixed toward white."""
    r, g, b = matplotlib.colors.to_rgb(color)
    t = min(0.3 * (depth - 1), 0.72)
    return (r + (1 - r) * t, g + (1 - g) * t, b + (1 - b) * t)


def icicle_layout(nodes):
    """Boxes [(x0, width, node, clipped)] for the kept tree in its order
    (parents before children): each parent's children laid left to right from
    its left edge, each clipped to what is left of its parent's width (medians
    are not additive). A box clipped away entirely has width 0."""
    free = {(): [0.0, math.inf]}  # path -> [next free x inside it, its right edge]
    boxes = []
    for n in nodes:
        path = tuple(n["path"])
        slot = free.get(path[:-1])
        if slot is None:  # an item whose parent was not kept: not in jitbench's trees
            continue
        x0, want = slot[0], max(n["median_s"], 0.0)
        x1 = min(x0 + want, slot[1])
        clipped = x0 + want > slot[1] * (1 + 1e-9) + 1e-12
        slot[0] = x1
        free[path] = [x0, x1]
        boxes.append((x0, x1 - x0, n, clipped))
    return boxes


# The sources the workers name their items by (worker/jitbench_worker: anatomy.nest's and
# as_duration_items' prefixes), each followed by the event's or pass's own name.
_SOURCE_KINDS = ("jitbench phase", "jax.profiler event", "tf.profiler event", "torch chromium event",
                 "numba pipeline pass")


def _source_kind(node):
    """jitbench phase, jax.profiler event, numba pipeline pass: the source without the item's own name
    (a known kind even where the item's label does not repeat the event's name: one label for two
    releases' names)."""
    src, name = node.get("source") or "", node["path"][-1]
    for kind in _SOURCE_KINDS:
        if src == kind or src.startswith(kind + " "):
            return kind
    inner = name[name.rfind("(") + 1:-1] if name.endswith(")") and "(" in name else None
    for bare in (name, inner):
        if bare and src.endswith(" " + bare):
            return src[:-len(bare) - 1]
    return src


def _level_labels(nodes, depth):
    labels = []
    for d in range(1, depth + 1):
        kinds = []
        for n in nodes:
            if len(n["path"]) == d and n["kind"] in ("phase", "item") and _source_kind(n) not in kinds:
                kinds.append(_source_kind(n))
        text = " / ".join(kinds) or "(jitbench's remainders)"
        labels.append(f"{d} · {text if len(text) <= 30 else text[:29] + '…'}")
    return labels


# Marks another thread's item (a thread pool's stage): in its label, and its box's dotted edge.
THREAD_MARK = "\u21c9"


def _box_label(node, width_pt, clipped):
    """The text that fits inside a box: name and median, a shortened name, the median alone, or nothing."""
    mark = f"{THREAD_MARK} " if node.get("thread") else ""
    name, val = mark + node["path"][-1] + (" ✂" if clipped else ""), _seconds(node["median_s"])
    fits = int((width_pt - 4) / ICICLE_CHAR_PT)
    if fits >= max(len(name), len(val)):
        return f"{name}\n{val}"
    if fits >= max(5, len(val)):
        return f"{name[:fits - 1]}…\n{val}"
    return val if fits >= len(val) else None


def _box_title(node, drawn, clipped):
    path = " › ".join(node["path"])
    what = {"unattributed": "what the children leave of their parent (no event or timer covers it)",
            "other": "the items too small to keep, summed"}.get(node["kind"], f"source: {node.get('source') or '—'}")
    clip = f"; clipped to the parent's width: drawn {_seconds(drawn)}" if clipped else ""
    thread = ""
    if node.get("thread"):
        spent = _seconds(node["thread_median_s"]) if node.get("thread_median_s") is not None else "not reported"
        thread = (f"\non another thread ({node['thread']}): the width is what its parent waited for it; "
                  f"thread time {spent} (median, summed over the threads)")
    return f"{path}\n{_seconds(node['median_s'])} (median){clip}{thread}\n{what}"


def _icicle(tree):
    nodes = tree["nodes"]
    boxes = icicle_layout(nodes)
    depth = max(len(n["path"]) for n in nodes)
    total = max((x0 + w for x0, w, n, _ in boxes if len(n["path"]) == 1), default=0.0) or 1e-9
    height = ICICLE_ROW_IN * depth
    fig = plt.figure(figsize=(ICICLE_LEFT_IN + ICICLE_WIDTH_IN + 0.2, height + 1.2))
    ax = fig.add_axes([ICICLE_LEFT_IN / fig.get_figwidth(), 0.85 / fig.get_figheight(),
                       ICICLE_WIDTH_IN / fig.get_figwidth(), height / fig.get_figheight()])
    phases = [n["path"][0] for n in nodes if len(n["path"]) == 1]
    titles = {}
    for k, (x0, w, n, clipped) in enumerate(boxes):
        if w <= 0:
            continue
        d = len(n["path"])
        if n["kind"] == "unattributed":
            style = {"facecolor": PHASE_COLORS["unattributed"], "hatch": "//", "edgecolor": "#b0a890"}
        elif n["kind"] == "other":
            style = {"facecolor": OTHER_COLOR, "edgecolor": "white"}
        else:
            base = COMPILE_COLORS[phases.index(n["path"][0]) % len(COMPILE_COLORS)] if n["path"][0] in phases else OTHER_COLOR
            style = {"facecolor": _lighter(base, d), "edgecolor": "white"}
            if n.get("thread"):
                style.update(edgecolor="black", linestyle=":")
        ax.add_patch(matplotlib.patches.Rectangle((x0, d - 1), w, 0.92, linewidth=0.6, gid=f"icicle-{k}", **style))
        titles[f"icicle-{k}"] = _box_title(n, w, clipped)
        label = _box_label(n, w / total * ICICLE_WIDTH_IN * 72, clipped)
        if label:
            ax.text(x0 + w / 2, d - 1 + 0.46, label, ha="center", va="center", fontsize=ICICLE_FONT, clip_on=True,
                    color="black" if d > 1 or n["kind"] != "phase" else "white")
    ax.set_xlim(0, total)
    ax.set_ylim(depth, 0)  # level 1 on top: an icicle
    ax.set_yticks([d - 0.54 for d in range(1, depth + 1)], _level_labels(nodes, depth), fontsize=ICICLE_FONT)
    ax.grid(False)
    _units(ax.xaxis)
    ax.set_xlabel("time within the first call: each box its median; children from their parent's left edge, "
                  "longest first", fontsize=ICICLE_FONT + 1)
    _icicle_legend(ax, nodes, any(c for *_, c in boxes))
    title = _warn_label(tree["case"], tree.get("warn"))
    ax.set_title(title, fontsize=9, loc="left", color=WARN_COLOR if tree.get("warn") else "black")
    return _with_titles(_svg(fig), titles)


def _icicle_legend(ax, nodes, clipped):
    """Below the axis, right-aligned: what the hatched, grey and ✂ boxes are, where the tree has them."""
    kinds = {n["kind"] for n in nodes if n["median_s"] > 0}
    handles = []
    if "unattributed" in kinds:
        handles.append(matplotlib.patches.Patch(facecolor=PHASE_COLORS["unattributed"], hatch="//",
                                                edgecolor="#b0a890", label="unattributed: no event or timer covers it"))
    if "other" in kinds:
        handles.append(matplotlib.patches.Patch(facecolor=OTHER_COLOR, label="other: small items, summed"))
    if clipped:
        handles.append(matplotlib.patches.Patch(facecolor="white", edgecolor="black", linewidth=0.5,
                                                label="\u2702 clipped to its parent's width"))
    if any(n.get("thread") and n["median_s"] > 0 for n in nodes):
        handles.append(matplotlib.patches.Patch(facecolor="white", edgecolor="black", linewidth=0.6, linestyle=":",
                                                label=f"{THREAD_MARK} on another thread: what its parent waited"))
    if handles:
        ax.figure.legend(handles=handles, loc="lower right", bbox_to_anchor=(0.99, 0.0), ncol=len(handles),
                         fontsize=ICICLE_FONT, frameon=False, borderaxespad=0.3, handlelength=1.6)


def _with_titles(svg, titles):
    """Each box's tooltip (an SVG <title>): its path, median, source and any clipping."""
    for gid, text in titles.items():
        svg = svg.replace(f'<g id="{gid}">', f'<g id="{gid}"><title>{html.escape(text)}</title>', 1)
    return svg


def anatomy_icicles(data):
    """[{"case", "svg"}]: one icicle per case with a compile anatomy (figure_data's "anatomy")."""
    return [{"case": t["case"], "svg": _icicle(t)} for t in data.get("anatomy") or [] if t["nodes"]]


# Keyed as src/export/docs/figure_data.cc lists them (titles and notes live there).
FIGURES = {"ttfr": ttfr_by_phase, "warm": warm_distributions, "breakeven": break_even,
           "mcpi": mc_pi_error_vs_time, "rnn": rnn_compile_curve, "remat": remat_memory, "releases": releases}

