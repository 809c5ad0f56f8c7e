"""jitbench.measure / run_workload / compare: the binary underneath, its out
dir read back as a Result."""

import csv
import io
import json
import math
import os
import pathlib
import tempfile
import time
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from . import _door
from ._binary import JitbenchError, run_binary
from ._refs import resolve
from .result import load


def measure(fn_or_target, inputs=None, check=None, cold_runs=None, warm_runs=None, envs=None, cache_policy=None,
            out_dir=None, backends=None, quiet=True, extra_args=(), name=None, count=None):
    """Measures a function as `jitbench measure TARGET` does, in fresh
    processes; returns the run as a Result (the JIT case at the top level,
    its eager baseline in `cases`). fn_or_target: a module-level function
    (jitted or not) or a 'package.module:name' / 'file.py:name' string;
    inputs and check likewise. ValueError when a fresh process could not
    import one of them; JitbenchError when jitbench refused the command.
    count="instructions" (or "instructions:valgrind" / ":hardware") also counts
    each phase's instructions in processes of their own (`--count`), which
    compare then judges beside the times."""
    if os.environ.get("JITBENCH_IMPORTING_TARGET"):
        raise JitbenchError("jitbench.measure was called while jitbench imported the code it measures (a call at "
                            "a script's top level?): put it under `if __name__ == \"__main__\":`")
    refs = [resolve(fn_or_target, "target")]
    args = ["measure", refs[0].text]
    for option, value in (("--inputs", inputs), ("--check", check)):
        if value is not None:
            refs.append(resolve(value, option[2:]))
            args += [option, refs[-1].text]
    if name:
        args += ["--name", name]
    args += _run_options(cold_runs, warm_runs, envs, cache_policy, backends, quiet, extra_args, count)
    label = name or refs[0].text.rpartition(":")[2]
    return _run_into(args, out_dir, label, quiet, refs)


def run_workload(path, cases=None, backends=None, cold_runs=None, warm_runs=None, envs=None, cache_policy=None,
                 out_dir=None, quiet=True, extra_args=(), count=None):
    """`jitbench run --workload-path PATH` (a workload file:
    docs/user-workloads.md), returned as a Result."""
    args = ["run", "--workload-path", os.fspath(path)]
    if cases:
        args += ["--cases", _joined(cases)]
    args += _run_options(cold_runs, warm_runs, envs, cache_policy, backends, quiet, extra_args, count)
    return _run_into(args, out_dir, pathlib.Path(path).stem, quiet, [])


def _joined(value):
    return value if isinstance(value, str) else ",".join(value)


def _run_options(cold_runs, warm_runs, envs, cache_policy, backends, quiet, extra_args, count=None):
    args = ["--count", count] if count else []
    for option, value in (("--cold-runs", cold_runs), ("--warm-runs", warm_runs)):
        if value is not None:
            args += [option, str(value)]
    for option, value in (("--cache-policy", cache_policy), ("--backends", backends)):
        if value:
            args += [option, _joined(value)]
    for env in [envs] if isinstance(envs, str) else envs or []:
        args += ["--env", env]
    if quiet:
        args.append("--quiet")
    return args + [str(a) for a in extra_args]


def _new_out_dir(label):
    # jitbench-out/<label>-<time>, as `jitbench run` names its own default.
    base = pathlib.Path("jitbench-out")
    _door.make_root(base)  # the user's working directory's: its links are the user's
    return pathlib.Path(tempfile.mkdtemp(prefix=f"{label}-{time.strftime('%Y%m%d-%H%M%S')}-", dir=base))


def _run_into(args, out_dir, label, quiet, refs):
    out = pathlib.Path(out_dir) if out_dir is not None else _new_out_dir(label)
    if out.is_dir() and any(out.iterdir()):  # jitbench refuses it: an earlier run there is not this one's result
        raise JitbenchError(f"out_dir {out} already holds files: give a new or empty directory (an earlier run "
                            "there would be read back as this one)")
    _door.make_root(out.parent)  # the path the user named, as it says
    # A module imported from a folder no fresh process looks in (a test file's,
    # a script's): the workers find it through PYTHONPATH, which jitbench passes on.
    roots = [r.pythonpath for r in refs if r.pythonpath]
    env = None
    if roots:
        env = {"PYTHONPATH": os.pathsep.join(dict.fromkeys([*roots, *filter(None, [os.environ.get("PYTHONPATH")])]))}
    rc, stdout, stderr = run_binary([*args, "--out-dir", str(out)], quiet=quiet, env=env)
    if (out / "index.json").is_file():
        return load(out, output=stdout + stderr, returncode=rc)
    said = (stderr.strip() or stdout.strip()).splitlines()[-3:]
    raise JitbenchError(f"jitbench {args[0]} exited {rc} without results in {out}: " + " / ".join(said))


# Interference grades as compare names them (docs/noise.md, "Grades"): a side's grade is the upper median of
# its processes' grades; "not reported" where none was measured.
QUIET = "quiet"
# What the gate made of a row (compare --format json's "gate"; None without --fail-on-regression). The first
# two fail the gate.
GATE_FAILS = ("regression", "confirmed by re-measurement")


@dataclass(frozen=True)
class Remeasured:
    """A row as the interleaved re-measurement found it (compare re-measured its case before failing on it)."""

    n_base: int
    n_new: int
    base_median: float
    new_median: float
    ratio: float
    ratio_ci: Tuple[float, float]
    p_value: Optional[float]
    verdict: str
    base_grade: str
    new_grade: str


@dataclass(frozen=True)
class CompareRow:
    """One metric of one case in `jitbench compare` (its --csv and --format json row)."""

    case: str
    metric: str
    n_base: int
    n_new: int
    base_median: float
    new_median: float
    ratio: float
    ratio_ci: Tuple[float, float]
    p_value: float
    hl_shift: float
    verdict: str  # faster, slower, smaller, larger, more/fewer instructions, no significant change, within spread,
    #               too few runs
    # How it was judged: mann_whitney (p is the test's), or spread (an instruction count, run --count: the
    # interval is its counting processes' spread, p is nan); "" from a jitbench that did not say.
    rule: str = ""
    # Each side's interference grade ("quiet", "busy", "contended", "not reported") and the CPUs other processes
    # took (median over its processes; None where not reported).
    base_grade: str = "not reported"
    new_grade: str = "not reported"
    base_others_cpus: Optional[float] = None
    new_others_cpus: Optional[float] = None
    # The gate's word on the row (GATE_FAILS fail it; "ok", "not judged", "cleared by re-measurement", "left to
    # instruction counts"); None without a threshold.
    gate: Optional[str] = None
    remeasured: Optional[Remeasured] = None

    @property
    def quiet(self):
        """Both sides measured on a quiet machine (an unreported side is not quiet)."""
        return self.base_grade == QUIET and self.new_grade == QUIET

    @property
    def fails_gate(self):
        return self.gate in GATE_FAILS


@dataclass
class Comparison:
    """`jitbench compare BASE NEW` read back: every row, the regressions its
    gate named (--fail-on-regression) and its exit code (0, or 1 when a case
    regressed beyond the threshold, got a worse status or is missing)."""

    rows: List[CompareRow]
    regressions: List[str]
    returncode: int
    output: str
    # Where a time changed significantly and its instruction count did not follow (compare's "Time and
    # instructions disagree"): one line each.
    disagreements: List[str] = field(default_factory=list)
    threshold_pct: Optional[float] = None
    # The interleaved re-measurement compare made before failing (a directory beside NEW) and the cases it
    # re-measured; None where it made none.
    remeasure_dir: Optional[str] = None
    remeasured_cases: List[str] = field(default_factory=list)
    cannot_remeasure: Optional[str] = None  # why BASE could not be re-measured, where compare said so
    worsened: List[str] = field(default_factory=list)  # cases whose status got worse
    removed: List[str] = field(default_factory=list)  # BASE's cases NEW lacks
    added: List[str] = field(default_factory=list)
    # What compare left out and why (instructions counted by another source, under other controls, or over
    # another number of warm calls): one line each.
    not_compared: List[str] = field(default_factory=list)

    @property
    def regressed(self):
        return self.returncode == 1

    def significant(self):
        return [r for r in self.rows if r.verdict not in ("no significant change", "within spread", "too few runs")]

    def untestable(self):
        """Rows with too few processes a side for the test to reach its alpha:
        no difference there can be significant, nor fail the gate."""
        return [r for r in self.rows if r.verdict == "too few runs"]

    def failing(self):
        """The rows that fail the gate: regressed beyond the threshold (confirmed by the re-measurement where
        compare re-measured)."""
        return [r for r in self.rows if r.fails_gate]


def _out_dir_of(run):
    return str(getattr(run, "out_dir", run))


def compare(a, b, fail_on_regression=None, alpha=None, remeasure=None):
    """`jitbench compare A B` (A, B: run dirs or Results) with its statistics:
    the Mann-Whitney test per metric, ratio CIs, each side's interference
    grade, and --fail-on-regression PCT's exit semantics. With a threshold,
    compare re-measures (interleaved, into a new directory beside B) the rows
    that would fail while a side was not quiet, and fails only on what that
    confirms; remeasure=False judges the rows as measured (--no-remeasure).
    JitbenchError when compare refused (an invalid run dir). The job summary
    (GITHUB_STEP_SUMMARY) is left to the caller: compare does not write it here."""
    if remeasure is not None and fail_on_regression is None:
        raise ValueError("remeasure= is the gate's: give fail_on_regression too")
    with tempfile.TemporaryDirectory(prefix="jitbench-compare-") as tmp:
        csv_path = pathlib.Path(tmp) / "rows.csv"
        args = ["compare", _out_dir_of(a), _out_dir_of(b), "--csv", str(csv_path), "--format", "json"]
        if fail_on_regression is not None:
            args += ["--fail-on-regression", str(fail_on_regression)]
        if remeasure is False:
            args.append("--no-remeasure")
        if alpha is not None:
            args += ["--alpha", str(alpha)]
        rc, stdout, stderr = run_binary(args, unset=("GITHUB_STEP_SUMMARY",))
        if rc not in (0, 1) or not csv_path.is_file():
            said = (stderr.strip() or stdout.strip()).splitlines()[-3:]
            raise JitbenchError(f"jitbench compare exited {rc}: " + " / ".join(said))
        csv_rows = {(r["case"], r["metric"]): r for r in csv.DictReader(io.StringIO(csv_path.read_text()))}
    try:
        doc = json.loads(stdout)
    except ValueError as exc:
        raise JitbenchError(f"jitbench compare --format json printed no JSON ({exc}): {stdout[:200]!r}") from None
    regressions = [line[len("regression: "):] for line in stderr.splitlines() if line.startswith("regression: ")]
    cmp = _comparison(doc, csv_rows, regressions, rc, stdout + stderr)
    if "disagreements" not in doc and any(r.rule == "spread" for r in cmp.rows):
        cmp.disagreements = _disagreements(_out_dir_of(a), _out_dir_of(b))
    return cmp


def _disagreements(a, b):
    """compare's "Time and instructions disagree" lines, from its text (the JSON does not carry them): the
    same two runs compared again without a threshold, which measures nothing."""
    rc, stdout, _ = run_binary(["compare", a, b], unset=("GITHUB_STEP_SUMMARY",))
    lines, inside = [], False
    for line in stdout.splitlines() if rc in (0, 1) else []:
        if line.startswith("Time and instructions disagree"):
            inside = True
        elif inside and line.startswith("  "):
            lines.append(line.strip())
        else:
            inside = False
    return lines


def _comparison(doc, csv_rows, regressions, rc, output):
    rows = [_compare_row(r, csv_rows.get((r["case"], r["metric"]), {})) for r in doc.get("rows") or []]
    again = doc.get("remeasure") or {}
    return Comparison(rows, regressions, rc, output, list(doc.get("disagreements") or []),
                      threshold_pct=doc.get("threshold_pct"), remeasure_dir=again.get("dir"),
                      remeasured_cases=list(again.get("cases") or []), cannot_remeasure=doc.get("cannot_remeasure"),
                      worsened=list(doc.get("worsened") or []), removed=list(doc.get("removed") or []),
                      added=list(doc.get("added") or []), not_compared=list(doc.get("not_compared") or []))


def _number(v):
    return math.nan if v is None else float(v)


def _remeasured(r):
    if not r:
        return None
    return Remeasured(int(r["n_base"]), int(r["n_new"]), _number(r["base_median"]), _number(r["new_median"]),
                      _number(r["ratio"]), (_number(r["ratio_ci_low"]), _number(r["ratio_ci_high"])),
                      r.get("p_value"), r["verdict"], r.get("base_grade") or "not reported",
                      r.get("new_grade") or "not reported")


def _compare_row(r, csv_row):
    """A --format json row, with the Hodges-Lehmann shift and the rule's CSV name from its --csv row."""
    rule = csv_row.get("rule") or {"test": "mann_whitney"}.get(r.get("rule"), r.get("rule") or "")
    return CompareRow(r["case"], r["metric"], int(r["n_base"]), int(r["n_new"]), _number(r["base_median"]),
                      _number(r["new_median"]), _number(r["ratio"]),
                      (_number(r["ratio_ci_low"]), _number(r["ratio_ci_high"])), _number(r.get("p_value")),
                      _number(csv_row.get("hl_shift")), r["verdict"], rule,
                      r.get("base_grade") or "not reported", r.get("new_grade") or "not reported",
                      r.get("base_others_cpus"), r.get("new_others_cpus"), r.get("gate"),
                      _remeasured(r.get("remeasured")))
