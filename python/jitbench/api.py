"""jitbench.measure / run_workload / compare: the binary underneath, its out
dir read back as a Result."""

import csv
import io
import os
import pathlib
import tempfile
import time
from dataclasses import dataclass, field
from typing import List, Tuple

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


@dataclass(frozen=True)
class CompareRow:
    """One metric of one case in `jitbench compare` (its --csv row)."""

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

    @property
    def regressed(self):
        return self.returncode == 1

    def significant(self):
        return [r for r in self.rows if r.verdict not in ("no significant change", "within spread", "too few runs")]

    def untestable(self):
        """Rows with too few processes a side for the test to reach its alpha:
        no difference there can be significant, nor fail the gate."""
        return [r for r in self.rows if r.verdict == "too few runs"]


def _out_dir_of(run):
    return str(getattr(run, "out_dir", run))


def compare(a, b, fail_on_regression=None, alpha=None):
    """`jitbench compare A B` (A, B: run dirs or Results) with its statistics:
    the Mann-Whitney test per metric, ratio CIs, and --fail-on-regression PCT's
    exit semantics. JitbenchError when compare refused (an invalid run dir)."""
    with tempfile.TemporaryDirectory(prefix="jitbench-compare-") as tmp:
        csv_path = pathlib.Path(tmp) / "rows.csv"
        args = ["compare", _out_dir_of(a), _out_dir_of(b), "--csv", str(csv_path)]
        if fail_on_regression is not None:
            args += ["--fail-on-regression", str(fail_on_regression)]
        if alpha is not None:
            args += ["--alpha", str(alpha)]
        rc, stdout, stderr = run_binary(args)
        if rc not in (0, 1) or not csv_path.is_file():
            said = (stderr.strip() or stdout.strip()).splitlines()[-3:]
            raise JitbenchError(f"jitbench compare exited {rc}: " + " / ".join(said))
        rows = [_compare_row(r) for r in csv.DictReader(io.StringIO(csv_path.read_text()))]
    regressions = [line[len("regression: "):] for line in stderr.splitlines() if line.startswith("regression: ")]
    disagreements, inside = [], False
    for line in stdout.splitlines():
        if line.startswith("Time and instructions disagree"):
            inside = True
        elif inside and line.startswith("  "):
            disagreements.append(line.strip())
        else:
            inside = False
    return Comparison(rows, regressions, rc, stdout + stderr, disagreements)


def _compare_row(r):
    f = float
    return CompareRow(r["case"], r["metric"], int(r["n_base"]), int(r["n_new"]), f(r["base_median"]),
                      f(r["new_median"]), f(r["ratio"]), (f(r["ratio_ci_low"]), f(r["ratio_ci_high"])),
                      f(r["p_value"]), f(r["hl_shift"]), r["verdict"], r.get("rule", "") or "")
