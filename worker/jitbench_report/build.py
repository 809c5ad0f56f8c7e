"""Reads a jitbench output directory and writes report.html (self-contained)
and report.md. Usage: python -m jitbench_report DIR"""

import html
import json
import pathlib

try:
    from . import figures
except ImportError as exc:  # jitbench reads this line from the log
    raise SystemExit(f"missing_dependency: matplotlib ({exc}); run scripts/setup.sh") from exc

CV_LIMIT = 0.10   # coefficient of variation above which a case is flagged
FEW_RUNS = 5      # fewer cold runs than this: medians and CIs are rough
GROUP_NOTES = {
    "high variance": f"coefficient of variation above {CV_LIMIT:.0%}: read these medians with their intervals",
    "few runs": f"fewer than {FEW_RUNS} cold runs: medians and intervals are rough",
}


def _load(out: pathlib.Path):
    index = json.loads((out / "index.json").read_text())
    cases = [json.loads((out / c["path"]).read_text()) for c in index["cases"]]  # in run order
    analysis = json.loads((out / "analysis.json").read_text())
    env = json.loads((out / "environment.json").read_text())
    return index, cases, analysis, env


def fmt_s(v):
    if v is None:
        return "—"
    if v >= 1:
        return f"{v:.3f} s"
    if v >= 1e-3:
        return f"{v * 1e3:.2f} ms"
    return f"{v * 1e6:.1f} µs"


def _median(summary, key):
    s = (summary or {}).get(key)
    return s.get("median") if s else None


def warnings(cases, analysis):
    """(kind, case, text) for everything a reader must know before trusting a number."""
    out = []
    for c in cases:
        cid, s = c["case"], c["cold"]["summary"]
        n_cold = (s.get("ttfr_s") or {}).get("n", 0)
        if c["status"] != "ok":
            kind = "interpreter-only" if c["reason"] == "interpreter_only" else c["status"]
            out.append((kind, cid, f"{c['reason']}" + (f": {c['detail']}" if c.get("detail") else "")))
        if c["status"] == "ok" and n_cold < FEW_RUNS:
            out.append(("few runs", cid, f"only {n_cold} cold runs: medians and intervals are rough (use --cold-runs {FEW_RUNS} or more)"))
        cv = (s.get("ttfr_s") or {}).get("cv")
        if cv is not None and cv > CV_LIMIT:
            out.append(("high variance", cid, f"cold TTFR varies by {cv * 100:.0f}% (coefficient of variation)"))
        wcv = ((c.get("warm") or {}).get("summary") or {}).get("cv")
        if wcv is not None and wcv > CV_LIMIT:
            out.append(("high variance", cid, f"warm calls vary by {wcv * 100:.0f}% (coefficient of variation)"))
    for a in analysis.get("cases", []):
        x = a.get("crosscheck") or {}
        if x.get("agrees") is False:
            steps = ", ".join(f"{k} {fmt_s(v['event_median_s'])} (events) vs {fmt_s(v['aot_s'])} (ahead of time)"
                              for k, v in x["steps"].items() if not v["agrees"])
            out.append(("phases disagree", a["case"], f"the ahead-of-time cross-check disagrees: {steps}"))
    few = [w for w in out if w[0] == "few runs"]
    if len(few) > 3:  # one line instead of one per case
        out = [w for w in out if w[0] != "few runs"]
        out.insert(0, ("few runs", f"{len(few)} cases", few[0][2]))
    return out


def environment_rows(env, cases):
    host = env.get("host", {})
    py = env.get("python", {})
    cpu = host.get("cpu") or {}
    rows = [("Machine", f"{cpu.get('model', '?')} · {cpu.get('logical_cores', '?')} logical CPUs · "
                        f"{(host.get('memory_total_kib') or 0) / 1048576:.1f} GiB · governor {cpu.get('governor') or 'n/a'}"),
            ("OS", f"{host.get('os', '?')} · kernel {host.get('kernel', '?')} · load {host.get('load_avg')}"),
            ("Python", f"{py.get('version', py.get('python', '?'))} ({py.get('executable', '?')})")]
    pk = py.get("packages") or {}
    rows.append(("Packages", ", ".join(f"{k} {v}" for k, v in sorted(pk.items()) if v)))
    gpu = host.get("gpu") or {}
    devices = gpu.get("devices") or []
    rows.append(("GPU", ", ".join(str(d.get("name", d)) if isinstance(d, dict) else str(d) for d in devices)
                 if devices else f"none ({gpu.get('note', 'not detected')})"))
    policies = sorted({c["cache"]["policy"] for c in cases})
    rows.append(("Cache modes", ", ".join(policies) + " — every compile cache lives in the run's own cache/ dir"))
    rows.append(("Captured", env.get("captured_at") or "—"))
    return rows


def case_rows(cases):
    rows = []
    for c in cases:
        s = c["cold"]["summary"]
        t = s.get("ttfr_s") or {}
        ci = t.get("median_ci95") or [None, None]
        w = (c.get("warm") or {}).get("summary") or {}
        rows.append({"case": c["case"], "status": c["status"], "reason": c["reason"] or "",
                     "precision": ((c.get("precision") or {}).get("matmul")) or "—",
                     "ttfr": fmt_s(t.get("median")), "ci": f"{fmt_s(ci[0])} – {fmt_s(ci[1])}" if ci[0] is not None else "—",
                     "import": fmt_s(_median(s, "import_s")), "first": fmt_s(_median(s, "first_call_s")),
                     "warm": fmt_s(w.get("median")), "p95": fmt_s(w.get("p95")), "runs": t.get("n", 0)})
    return rows


def at_a_glance(cases, analysis):
    """One row per piece of work (workload, size, dtype, cache mode): which
    backend gave the first result soonest, which is fastest once warm, and
    after how many calls each JIT pays for itself against its eager baseline."""
    backend, work_of = figures.backend_of(analysis), figures.work_of(analysis)
    groups = {}
    for c in cases:
        if c["status"] != "ok":
            continue
        b, work = backend[c["case"]], work_of[c["case"]]
        ttfr = _median(c["cold"]["summary"], "ttfr_s")
        warm = ((c.get("warm") or {}).get("summary") or {}).get("median")
        groups.setdefault(work, []).append((b, ttfr, warm))
    be = {}
    for r in analysis.get("break_even", []):
        b, work = backend[r["jit_case"]], work_of[r["jit_case"]]
        if r["verdict"] == "calls" and r["calls"] is not None:
            text = f"{b} {r['calls']:,.0f}" if r["calls"] >= 10 else f"{b} {r['calls']:.1f}"
        else:
            text = f"{b} {'from the first call' if r['verdict'] == 'immediately' else 'never'}"
        be.setdefault(work, []).append(text)
    rows = []
    for work, xs in groups.items():
        first = [x for x in xs if x[1] is not None]
        fast = [x for x in xs if x[2] is not None]
        f = min(first, key=lambda x: x[1]) if first else None
        w = min(fast, key=lambda x: x[2]) if fast else None
        rows.append({"work": work, "backends": len(xs),
                     "first": f"{f[0]} ({fmt_s(f[1])})" if f else "—",
                     "warm": f"{w[0]} ({fmt_s(w[2])})" if w else "—",
                     "breakeven": ", ".join(be.get(work, [])) or "—"})
    return rows


def grouped_warnings(warns):
    """Warnings that concern one case each (not ok, unverified cache) stay one
    row each; the many 'few runs' / 'high variance' rows are grouped by kind."""
    single, grouped = [], {}
    for kind, cid, text in warns:
        if kind in ("high variance", "few runs"):
            grouped.setdefault(kind, []).append((cid, text))
        else:
            single.append((kind, cid, text))
    return single, grouped


FIGURES = [
    ("ttfr", "Time to first result by phase",
     "One bar per case: import, building the inputs, each compile phase the framework reports, and the rest of "
     "the first call (dispatch + execution, hatched).", lambda c, a: figures.ttfr_by_phase(c, a)),
    ("warm", "Warm-call distributions", "Every warm call of every ok case, log scale.",
     lambda c, a: figures.warm_distributions(c)),
    ("breakeven", "Break-even: total time against the number of calls",
     "One panel per workload and size, both axes logarithmic: TTFR + N × warm call for each JIT (solid) and its "
     "eager baseline (dashed); the dot is N*, where the JIT has paid for itself (also in each legend).",
     lambda c, a: figures.break_even(a)),
    ("mcpi", "mc_pi: error against time",
     "|π − estimate| against the warm call, one line per backend over n. Every backend counts the same points, "
     "so each n has one error for all of them (up to float32 rounding on the circle's edge; n named on the right); "
     "what differs is the time.",
     lambda c, a: figures.mc_pi_error_vs_time(a)),
    ("rnn", "rnn: compile time against the unrolled length",
     "lax.scan compiles one step; the unrolled loop compiles every step.", lambda c, a: figures.rnn_compile_curve(a)),
    ("remat", "remat: memory and time with and without checkpointing",
     "XLA's temporary buffers, the first call's peak-RSS growth, and the warm call.",
     lambda c, a: figures.remat_memory(a)),
]

CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;font-size:13px;margin:.5em 0}td,th{border:1px solid #ddd;padding:3px 7px;text-align:left}#cases td{white-space:nowrap}
th{background:#f4f4f4}tr.warn td{background:#fff8e1}tr.failed td{background:#fdecea}code{font-size:12px}
.fig{margin:1em 0 2em}.fig svg{max-width:100%;height:auto}.note{color:#555;font-size:13px}
.badge{display:inline-block;padding:0 6px;border-radius:8px;font-size:12px}.ok{background:#e6f4ea}
.warn{background:#fff3cd}.failed{background:#f8d7da}details{margin:.4em 0;font-size:13px}summary{cursor:pointer}"""


def render_html(index, cases, analysis, env, figs, warns):
    e = html.escape
    cmd = index.get("command", "")
    command = " ".join(cmd) if isinstance(cmd, list) else cmd
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>jitbench report</title>"
             f"<style>{CSS}</style></head><body>",
             "<h1>jitbench report</h1>",
             "<p class='note'><b>Cold TTFR</b> (time to first result) = importing the framework and initialising "
             "its device + building the inputs + the first synchronized call, in a fresh process. <b>Warm call</b> = "
             "one synchronized call once everything is compiled. <b>N*</b> = the number of further calls after "
             "which a JIT's compile time has paid for itself against the eager baseline (the same framework without "
             "its JIT on the same device when the run has it, else NumPy). Medians with bootstrap 95% intervals over the cold runs; every result was checked "
             "against a float64 reference.</p>"]
    if command:
        parts.append(f"<p class='note'>Command: <code>{e(command)}</code></p>")
    glance = at_a_glance(cases, analysis)
    if glance:
        parts.append("<section id='glance'><h2>At a glance</h2><table><tr><th>Work</th><th>Backends</th>"
                     "<th>First result soonest</th><th>Fastest once warm</th><th>JIT pays for itself after (N*)</th>"
                     "</tr>")
        for r in glance:
            parts.append(f"<tr><td><code>{e(r['work'])}</code></td><td>{r['backends']}</td><td>{e(r['first'])}</td>"
                         f"<td>{e(r['warm'])}</td><td>{e(r['breakeven'])}</td></tr>")
        parts.append("</table><p class='note'>Only ok cases; the figures and the full table follow.</p></section>")
    parts.append("<section id='environment'><h2>Environment</h2><table>")
    for k, v in environment_rows(env, cases):
        parts.append(f"<tr><th>{e(k)}</th><td>{e(str(v))}</td></tr>")
    parts.append("</table></section>")
    single, grouped = grouped_warnings(warns)
    parts.append(f"<section id='warnings'><h2>Warnings ({len(warns)})</h2>")
    if single:
        parts.append("<table><tr><th>Kind</th><th>Case</th><th>What</th></tr>")
        for kind, cid, text in single:
            parts.append(f"<tr><td>{e(kind)}</td><td><code>{e(cid)}</code></td><td>{e(text)}</td></tr>")
        parts.append("</table>")
    for kind, items in grouped.items():
        parts.append(f"<details><summary><b>{e(kind)}</b>: {len(items)} "
                     f"{'entry' if len(items) == 1 else 'entries'} — {e(GROUP_NOTES[kind])}</summary><table>")
        for cid, text in items:
            parts.append(f"<tr><td><code>{e(cid)}</code></td><td>{e(text)}</td></tr>")
        parts.append("</table></details>")
    if not warns:
        parts.append("<p>None: every case ran cleanly, with enough runs and low variance.</p>")
    parts.append("</section>")
    for key, title, note, svg in figs:
        parts.append(f"<section class='fig' id='fig-{key}'><h2>{e(title)}</h2><p class='note'>{e(note)}</p>{svg}"
                     "</section>")
    parts.append(f"<section id='cases'><h2>Cases ({len(cases)})</h2><table><tr><th>Case</th><th>Status</th>"
                 "<th>Matmul precision</th><th>Cold TTFR</th><th>95% CI</th><th>Import</th><th>First call</th><th>Warm call</th>"
                 "<th>Warm p95</th><th>Cold runs</th></tr>")
    for r in case_rows(cases):
        st = r["status"]
        label = st + (f": {r['reason']}" if r["reason"] else "")
        parts.append(f"<tr class='{st}' data-case='{e(r['case'])}'><td><code>{e(r['case'])}</code></td>"
                     f"<td><span class='badge {st}'>{e(label)}</span></td><td>{e(r['precision'])}</td>"
                     f"<td>{e(r['ttfr'])}</td><td>{e(r['ci'])}</td>"
                     f"<td>{e(r['import'])}</td><td>{e(r['first'])}</td><td>{e(r['warm'])}</td><td>{e(r['p95'])}</td>"
                     f"<td>{r['runs']}</td></tr>")
    parts.append("</table><p class='note'>A warn case's timings (interpreter_only) are shown for what they are and "
                 "left out of every figure and comparison.</p></section>")
    parts.append("</body></html>")
    return "\n".join(parts)


def render_md(cases, analysis, env, figs, warns):
    lines = ["# jitbench report", ""]
    glance = at_a_glance(cases, analysis)
    if glance:
        lines += ["## At a glance", "", "| Work | Backends | First result soonest | Fastest once warm | "
                  "JIT pays for itself after (N*) |", "|---|---|---|---|---|"]
        lines += [f"| `{r['work']}` | {r['backends']} | {r['first']} | {r['warm']} | {r['breakeven']} |" for r in glance]
        lines.append("")
    lines += ["## Environment", ""]
    lines += [f"- **{k}**: {v}" for k, v in environment_rows(env, cases)]
    lines += ["", f"## Warnings ({len(warns)})", ""]
    lines += [f"- {kind} — `{cid}`: {text}" for kind, cid, text in warns] or ["None."]
    lines += ["", f"## Cases ({len(cases)})", "",
              "| Case | Status | Matmul precision | Cold TTFR | 95% CI | Import | First call | Warm call | Warm p95 | "
              "Cold runs |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for r in case_rows(cases):
        status = r["status"] + (f": {r['reason']}" if r["reason"] else "")
        lines.append(f"| `{r['case']}` | {status} | {r['precision']} | {r['ttfr']} | {r['ci']} | {r['import']} | "
                     f"{r['first']} | "
                     f"{r['warm']} | {r['p95']} | {r['runs']} |")
    lines += ["", "Figures (in report.html): " + ", ".join(t for _, t, _, _ in figs), ""]
    return "\n".join(lines)


def main(argv):
    if len(argv) != 2:
        print("usage: python -m jitbench_report RUN_DIR REPORT_DIR")
        return 2
    index, cases, analysis, env = _load(pathlib.Path(argv[0]))
    out = pathlib.Path(argv[1])
    out.mkdir(exist_ok=True)
    figs = []
    for key, title, note, make in FIGURES:
        svg = make(cases, analysis)
        if svg:
            figs.append((key, title, note, svg))
    warns = warnings(cases, analysis)
    (out / "report.html.tmp").write_text(render_html(index, cases, analysis, env, figs, warns), encoding="utf-8")
    (out / "report.html.tmp").replace(out / "report.html")
    (out / "report.md.tmp").write_text(render_md(cases, analysis, env, figs, warns), encoding="utf-8")
    (out / "report.md.tmp").replace(out / "report.md")
    print(json.dumps({"html": str(out / "report.html"), "md": str(out / "report.md"),
                      "figures": [k for k, *_ in figs], "warnings": len(warns), "cases": len(cases)}))
    return 0
