"""A Result in Jupyter: a small table (status, TTFR median [CI], phases, warm
call, N*) and the report's TTFR-by-phase figure, drawn by the report's own
figures package (src/report/figures/jitbench_figures) in a child process, so
that matplotlib's backend in the user's kernel is left alone."""

import html
import json
import os
import pathlib
import subprocess
import sys

from ._binary import SOURCE_BUILD
from ._format import fmt_seconds

# The figures package, found as `jitbench report` finds it: $JITBENCH_FIGURES_DIR,
# else the installation's (pip: site-packages/jitbench/_data/figures), else the source tree's.
INSTALLED_FIGURES = pathlib.Path(__file__).resolve().parent / "_data" / "figures"
SOURCE_FIGURES = SOURCE_BUILD.parent.parent / "src" / "report" / "figures"
# What the figure needs and how to get it, said as `jitbench report` says it.
FIGURES_EXTRA = "pip install 'jitbench[figures]'"
_DRAW = ("import json, sys\nfrom jitbench_figures import figures\n"
         "svg = figures.ttfr_by_phase(json.load(sys.stdin))\nsys.stdout.write(svg or '')\n")


def _with_ci(m):
    """As summary.md writes it: the median, and its 95% interval from 6 processes or more, else n and the range."""
    if m.median is None:
        return "—"
    if m.ci:
        return f"{fmt_seconds(m.median)} [{fmt_seconds(m.ci[0])} – {fmt_seconds(m.ci[1])}]"
    if m.n > 1:
        return f"{fmt_seconds(m.median)} (n = {m.n}, range {fmt_seconds(m.range[0])} – {fmt_seconds(m.range[1])})"
    return f"{fmt_seconds(m.median)} (n = {m.n})"


def _n_star(c):
    if not c.is_jit:
        return "— (eager)"
    if c.n_star is None:
        return c.n_star_reason or "—"
    ci = ""
    if c.n_star_ci and c.n_star_ci[0] is not None:
        hi = "never" if c.n_star_ci[1] is None else c.n_star_ci[1]
        ci = f" [{c.n_star_ci[0]} – {hi}]"
    return f"{c.n_star}{ci} against {c.eager_case}"


def _phases(c):
    return " · ".join(f"{k} {fmt_seconds(v)}" for k, v in c.phases.items() if v is not None) or "—"


def _row(c):
    status = c.status + (f": {c.reason}" if c.reason else "")
    cells = [c.label, status, _with_ci(c.ttfr), _phases(c), _with_ci(c.warm_call), _n_star(c)]
    return "<tr>" + "".join(f"<td>{html.escape(str(x))}</td>" for x in cells) + "</tr>"


def figure_data(result):
    """The report's TTFR-by-phase data (src/export/docs/figure_data.cc, ttfr_parts):
    import, setup, each phase's median, what no phase covers."""
    rows = []
    for c in result.cases:
        if c.status != "ok" or not c.ttfr.samples:
            continue
        summary = (c.doc.get("cold") or {}).get("summary") or {}
        med = {k: (summary.get(k) or {}).get("median") or 0.0 for k in ("import_s", "setup_s", "first_call_s")}
        phases = {k: v for k, v in c.phases.items() if k != "unattributed" and v is not None}
        parts = [["import", med["import_s"]], ["setup", med["setup_s"]], *[[k, v] for k, v in phases.items()]]
        parts.append(["unattributed", max(med["first_call_s"] - sum(phases.values()), 0.0)])
        rows.append({"case": c.label, "parts": parts})
    return {"ttfr": rows}


def figures_dir():
    env = os.environ.get("JITBENCH_FIGURES_DIR")
    if env:
        return pathlib.Path(env)
    return INSTALLED_FIGURES if (INSTALLED_FIGURES / "jitbench_figures").is_dir() else SOURCE_FIGURES


def draw_ttfr_figure(result):
    """(svg, None) or (None, why not)."""
    data = figure_data(result)
    if not data["ttfr"]:
        return None, "no ok case with cold runs to draw"
    fig_dir = figures_dir()
    if not (fig_dir / "jitbench_figures").is_dir():
        return None, f"the figures package is not at {fig_dir} (set JITBENCH_FIGURES_DIR)"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(fig_dir), os.environ.get("PYTHONPATH", "")]))
    try:
        proc = subprocess.run([sys.executable, "-c", _DRAW], input=json.dumps(data), capture_output=True,
                              text=True, env=env, timeout=120)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"drawing failed: {exc}"
    if proc.returncode != 0 or "<svg" not in proc.stdout:
        last = (proc.stderr.strip().splitlines() or ["no SVG came back"])[-1]
        if "No module named 'matplotlib'" in proc.stderr:
            return None, f"matplotlib is not installed in {sys.executable}: `{sys.executable} -m {FIGURES_EXTRA}`"
        return None, f"drawing failed: {last}"
    return proc.stdout, None


def result_html(result):
    head = ["Case", "Status", "TTFR median [95% CI or range]", "First call's phases (median)",
            "Warm call median [95% CI or range of the processes' medians]", "N* (calls, the first included)"]
    table = ("<table><thead><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>"
             + "".join(_row(c) for c in result.cases) + "</tbody></table>")
    if result._figure is None:
        result._figure = draw_ttfr_figure(result)
    svg, why = result._figure
    below = svg if svg else f"<p>TTFR-by-phase figure not drawn: {html.escape(why)}</p>"
    title = f"<p>jitbench run <code>{html.escape(str(result.out_dir))}</code></p>"
    return f"<div>{title}{table}{below}</div>"
