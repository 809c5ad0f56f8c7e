"""The pytest plugin's gate, said: each comparison's rows as a table (the
terminal summary, a failed test's report) and as Markdown (the job summary
GITHUB_STEP_SUMMARY names), and which metric decided."""

import math
import os
import stat

from . import _door
from ._format import fmt_seconds

HEADERS = ("case", "metric", "base", "new", "ratio [95% CI]", "grade B, N", "verdict", "gate")


def _count(n):
    for scale, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= scale:
            v = n / scale
            return f"{v:.{1 if v >= 100 else 2 if v >= 10 else 3}f} {prefix}"
    return f"{n:.0f}"


def value(metric, v):
    """A row's median as compare prints it: a count, memory in MiB, else seconds."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    if metric.startswith("instructions_"):
        return _count(v)
    if metric == "peak_rss_kib":
        return f"{v / 1024:.1f} MiB"
    return fmt_seconds(v)


def ratio(metric, r, ci):
    digits = 4 if metric.startswith("instructions_") else 3
    if any(math.isnan(x) for x in ci):
        return f"{r:.{digits}f}"
    return f"{r:.{digits}f} [{ci[0]:.{digits}f}–{ci[1]:.{digits}f}]"


def grade(name, cpus):
    """A side's grade, with the CPUs others took where it was not quiet."""
    return name if cpus is None or name in ("quiet", "not reported") else f"{name} (others {cpus:.1f} CPUs)"


def _gate_cell(row):
    if row.gate is None:
        return "—"
    again = row.remeasured
    if again is None:
        return row.gate
    return (f"{row.gate}: {ratio(row.metric, again.ratio, again.ratio_ci)} {again.verdict} "
            f"({again.base_grade}, {again.new_grade})")


def cells(row):
    return (row.case, row.metric, value(row.metric, row.base_median), value(row.metric, row.new_median),
            ratio(row.metric, row.ratio, row.ratio_ci),
            f"{grade(row.base_grade, row.base_others_cpus)}, {grade(row.new_grade, row.new_others_cpus)}",
            row.verdict, _gate_cell(row))


def table(rows, indent="  "):
    """Rows as a text table, each column as wide as its widest cell."""
    lines = [HEADERS, *map(cells, rows)]
    widths = [max(len(line[i]) for line in lines) for i in range(len(HEADERS))]
    return [indent + "  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in lines]


def _kind(row):
    if row.rule == "spread":
        return "instruction count"
    return "memory" if row.metric == "peak_rss_kib" else "time"


_KINDS = {"instruction count": "instruction counts", "memory": "memory", "time": "times"}
JUDGED = ("ok", "regression", "confirmed by re-measurement", "cleared by re-measurement")


def decided(cmp, pct):
    """One line: what the gate made of a comparison and which metric decided it."""
    if pct is None:
        return "not gated (no --jitbench-fail-on-regression)"
    failing = cmp.failing()
    if failing or cmp.worsened or cmp.removed:
        said = [f"{r.case} {r.metric} ({_kind(r)}) {r.verdict} {ratio(r.metric, r.ratio, r.ratio_ci)}"
                + (" confirmed by re-measurement" if r.gate == "confirmed by re-measurement" else "")
                for r in failing]
        said += [f"{c}: status worse" for c in cmp.worsened] + [f"{c}: missing" for c in cmp.removed]
        return f"REGRESSED beyond {pct:g}%, decided by " + "; ".join(said) + _not_compared(cmp)
    judged = [r for r in cmp.rows if r.gate in JUDGED]
    kinds = sorted({_KINDS[_kind(r)] for r in judged})
    undecided = [r for r in cmp.rows if r.gate == "not judged"]
    cleared = [r for r in cmp.rows if r.gate == "cleared by re-measurement"]
    left = [r for r in cmp.rows if r.gate == "left to instruction counts"]
    text = f"ok: no metric regressed beyond {pct:g}% ({len(judged)} judged: {' and '.join(kinds) or 'none'}"
    # not judged: too few processes, or an interval that reaches across the limit
    text += f"; {len(undecided)} not judged)" if undecided else ")"
    if cleared:
        text += f"; {', '.join(r.metric for r in cleared)} cleared by re-measurement"
    if left:
        text += f"; {', '.join(r.metric for r in left)} left to the instruction counts (not confirmed, not failing)"
    return text + _not_compared(cmp)


def _not_compared(cmp):
    """What compare left out (instructions counted otherwise), said where the gate's line is read."""
    return f"; not compared: {'; '.join(cmp.not_compared)}" if cmp.not_compared else ""


def hint(cmp, pct, remeasure):
    """Where a side was not quiet: the options that help, as far as they are not in use already."""
    loud = [r for r in cmp.rows if r.rule != "spread" and not r.quiet]  # a count is judged as measured
    helps = []
    if pct is not None and remeasure is False:
        helps.append("without --no-jitbench-remeasure the gate measures such rows again, interleaved, before failing")
    if not any(r.rule == "spread" for r in cmp.rows):
        helps.append("--jitbench-count instructions adds counts, which a loaded machine barely moves")
    if not loud or not helps:
        return []
    return [f"  not quiet: {len(loud)} of {len(cmp.rows)} rows had a side measured on a busy or contended machine "
            "(or one not reported): " + "; ".join(helps)]


def describe(key, cmp, pct, remeasure=None):
    """The terminal summary's lines for one comparison."""
    changed = [f"{r.metric} {r.verdict} ({r.ratio:.3f}x)" for r in cmp.significant()]
    lines = [f"{key}: {len(changed)} of {len(cmp.rows)} metrics differ significantly"
             + (": " + ", ".join(changed) if changed else ""), f"  gate: {decided(cmp, pct)}"]
    lines += table(cmp.rows, "    ")
    if cmp.remeasure_dir:
        lines.append(f"  re-measured {len(cmp.remeasured_cases)} case(s), BASE and NEW interleaved, in "
                     f"{cmp.remeasure_dir}")
    if cmp.cannot_remeasure:
        lines.append(f"  cannot re-measure BASE: {cmp.cannot_remeasure}")
    lines += [f"  REGRESSION {line}" for line in cmp.regressions]
    lines += _not_judged(cmp)
    lines += [f"  DISAGREE {line}" for line in cmp.disagreements]
    return lines + hint(cmp, pct, remeasure)


def _not_judged(cmp):
    untestable = cmp.untestable()
    timed = [r for r in untestable if r.rule != "spread"]
    counted = [r for r in untestable if r.rule == "spread"]
    lines = []
    if timed:  # the gate cannot fail there: said, never silent
        names = sorted({r.metric for r in timed})
        need = sorted({"warm_runs" if m.startswith("warm") else "cold_runs" for m in names})
        lines.append(f"  NOT JUDGED {len(timed)} of {len(cmp.rows)} metrics ({', '.join(names)}): too "
                     "few processes a side for the test to reach p < 0.05 (4+ each), so no regression "
                     f"there can fail the test: measure with {' and '.join(n + '=4' for n in need)} or "
                     "more on both sides")
    if counted:
        names = sorted({r.metric for r in counted})
        lines.append(f"  NOT JUDGED {len(counted)} of {len(cmp.rows)} instruction counts "
                     f"({', '.join(names)}): fewer than 2 counting processes a side, so their spread is "
                     "unknown: count with --count-runs 2 or more")
    return lines


def failure(key, cmp, pct):
    """What a failed test's report says: the measurement, the rows that failed it."""
    lines = [f"jitbench: {key} {decided(cmp, pct)}"]
    if cmp.failing():
        lines += table(cmp.failing())
    if cmp.remeasure_dir:
        lines.append(f"re-measured in {cmp.remeasure_dir}")
    return lines


def heading(saved_dir, pct, remeasure):
    text = f"compared with {saved_dir}"
    if pct is not None:
        text += f", failing above {pct:g}% regression"
        text += (", judged as measured (--no-jitbench-remeasure)" if remeasure is False else
                 ", re-measuring (interleaved) before failing where a side was not quiet")
    return text


def _md(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(saved_dir, pct, compared):
    """The job summary: every compared measurement's rows, and the verdict."""
    out = [f"### jitbench: compared with `{saved_dir}`" + (f", failing above {pct:g}%" if pct is not None else ""),
           "", "| test | " + " | ".join(HEADERS) + " |", "|---" * (len(HEADERS) + 1) + "|"]
    failed, notes = [], []
    for key, cmp in compared:
        if isinstance(cmp, str):
            out.append(f"| {_md(key)} | " + " | ".join(["—"] * (len(HEADERS) - 2)) + f" | {_md(cmp)} | failed |")
            failed.append(f"{key} (not compared)")
            continue
        out += [f"| {_md(key)} | " + " | ".join(_md(c) for c in cells(r)) + " |" for r in cmp.rows]
        if cmp.regressed:
            failed.append(f"{key}: {decided(cmp, pct)}")
        if cmp.remeasure_dir:
            notes.append(f"{key}: re-measured {len(cmp.remeasured_cases)} case(s), BASE and NEW interleaved")
        if cmp.cannot_remeasure:
            notes.append(f"{key}: cannot re-measure BASE: {cmp.cannot_remeasure}")
    out.append("")
    out += [f"- {_md(n)}" for n in notes] + ([""] if notes else [])
    if pct is None:
        out.append("Not gated (no `--jitbench-fail-on-regression`).")
    elif failed:
        out.append("**The gate fails**: " + "; ".join(_md(f) for f in failed))
    else:
        out.append(f"The gate passes: no measurement regressed beyond {pct:g}%.")
    return "\n".join(out) + "\n\n"


def markdown_saved(name, results):
    """The job summary of a session that was saved and not compared: each case's times (and counts), for the
    record."""
    out = [f"### jitbench: measurements saved as `{name}`", "",
           "| test | case | status | time to first result | warm call | instructions to first result |",
           "|---|---|---|---|---|---|"]
    for key, result in results:
        for case in getattr(result, "cases", None) or []:
            counted = case.instructions.get("ttfr")
            out.append(f"| {_md(key)} | {_md(case.name)} | {case.status} | {fmt_seconds(case.ttfr.median)} | "
                       f"{fmt_seconds(case.warm_call.median)} | {_count(counted['median']) if counted else '—'} |")
    return "\n".join(out) + "\n\n"


def append_step_summary(text, environ=os.environ):
    """Appends text to the file GITHUB_STEP_SUMMARY names (GitHub Actions'
    job summary), never truncating it; a warning line where it cannot, else None."""
    path = environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return None
    parent, name = os.path.split(os.path.abspath(path))
    try:
        # Only a regular file (or none yet): opening a FIFO to write would wait for a reader forever.
        if os.path.lexists(path) and not stat.S_ISREG(os.lstat(path).st_mode):
            raise ValueError("not a regular file")
        _door.append_line(parent, name, text)
    except (OSError, ValueError) as exc:
        return f"jitbench: warning: GITHUB_STEP_SUMMARY={path}: the job summary was not written ({exc})"
    return None
