"""The pytest plugin as a CI gate (issue 51, part 3): a failed gate fails the
test that regressed, with the rows that failed it; the terminal summary shows
the table of the numbers judged (metric, base, new, ratio [CI], grade B/N,
gate) and says which metric decided; --jitbench-remeasure (the default with
--jitbench-fail-on-regression) or --no-jitbench-remeasure reach `jitbench
compare`; GITHUB_STEP_SUMMARY receives the Markdown table, appended.

Here `jitbench compare` is a stand-in that prints what its --format json
contract says (schemas/jitbench.compare.v1.schema.json) and exits as told, so
each of the gate's outcomes is shown without measuring a regression; the
measurements are the golden run's, copied. tests/test_ci_workflow.py runs the
real thing."""

import json
import os
import sys

import pytest

from conftest import JITBENCH, ROOT
from test_python_api import GOLDEN, _executable, _plugin_args

pytestmark = pytest.mark.quick

sys.path.insert(0, str(ROOT / "python"))
import jitbench as jb  # noqa: E402
from jitbench import _gate  # noqa: E402

pytest_plugins = ["pytester"]

FAKE = """#!{python}
# measure/run: the golden run copied into --out-dir; validate: the real binary's;
# compare: the rows of $FAKE_COMPARE (its --format json document), exit $FAKE_COMPARE_RC.
import csv, json, os, shutil, sys
args = sys.argv[1:]
if args[:1] == ["validate"]:
    os.execv({real!r}, [{real!r}, *args])
with open(os.environ["FAKE_JITBENCH_LOG"], "a") as f:
    f.write(json.dumps(args) + "\\n")
if args[0] != "compare":
    shutil.copytree({golden!r}, args[args.index("--out-dir") + 1], dirs_exist_ok=True)
    sys.exit(0)
rc = int(os.environ.get("FAKE_COMPARE_RC", "0"))
if rc not in (0, 1):
    print("jitbench compare: BASE: not a run dir", file=sys.stderr)
    sys.exit(rc)
doc = json.load(open(os.environ["FAKE_COMPARE"]))
with open(args[args.index("--csv") + 1], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["case", "metric", "hl_shift", "rule"])
    for r in doc["rows"]:
        w.writerow([r["case"], r["metric"], "0.001", "spread" if r["rule"] == "spread" else "mann_whitney"])
print(json.dumps(doc))
for r in doc["rows"]:
    if r["gate"] in ("regression", "confirmed by re-measurement"):
        print(f"regression: {{r['case']}} {{r['metric']}} is worse", file=sys.stderr)
sys.exit(rc)
"""


def row(metric, gate, verdict="no significant change", ratio=1.0, rule="test", grades=("quiet", "quiet"),
        remeasured=None, case="numpy_plain_1_f32"):
    return {"case": case, "metric": metric, "rule": rule, "n_base": 5, "n_new": 5, "base_median": 0.010,
            "new_median": 0.010 * ratio, "ratio": ratio, "ratio_ci_low": ratio * 0.95, "ratio_ci_high": ratio * 1.05,
            "p_value": None if rule == "spread" else 0.008, "verdict": verdict, "base_grade": grades[0],
            "new_grade": grades[1], "base_others_cpus": 0.1 if grades[0] == "quiet" else 1.4,
            "new_others_cpus": 0.1 if grades[1] == "quiet" else 1.7, "gate": gate, "remeasured": remeasured}


def document(rows, rc=0, remeasure=None, cannot=None, pct=10.0):
    return {"schema": "jitbench.compare.v1", "base": "B", "new": "N", "threshold_pct": pct, "alpha": 0.05,
            "exit_code": rc, "remeasure": remeasure, "cannot_remeasure": cannot, "rows": rows, "worsened": [],
            "removed": [], "added": []}


CONFIRMED = row("cold_ttfr_s", "confirmed by re-measurement", "slower", 3.1, grades=("busy", "contended"),
                remeasured={"n_base": 5, "n_new": 5, "base_median": 0.01, "new_median": 0.03, "ratio": 3.0,
                            "ratio_ci_low": 2.8, "ratio_ci_high": 3.2, "p_value": 0.008, "verdict": "slower",
                            "base_grade": "busy", "new_grade": "busy"})
COUNTED = row("instructions_ttfr", "regression", "more instructions", 1.3, rule="spread")

TESTS = """
def test_fast(jitbench):
    jitbench.measure("pkg.mod:fast")

def test_slow(jitbench):
    r = jitbench.measure("pkg.mod:slow")
    assert r.status == "ok"
"""


def failure_report(out, test):
    """The FAILURES section's report of one test."""
    return out.split(f"_ {test} _")[1].split("\n=")[0]


@pytest.fixture
def gate(pytester, tmp_path, monkeypatch):
    """A session saved as `base` by the stand-in; returns run(doc, *args) -> (pytest result, compare argvs)."""
    log = tmp_path / "argv.log"
    _executable(tmp_path / "fake-jitbench", FAKE.format(python=sys.executable, golden=str(GOLDEN),
                                                        real=str(JITBENCH)))
    monkeypatch.setenv("JITBENCH_BIN", str(tmp_path / "fake-jitbench"))
    monkeypatch.setenv("FAKE_JITBENCH_LOG", str(log))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    pytester.makepyfile(test_perf=TESTS)
    assert pytester.runpytest(*_plugin_args(), "--jitbench-save", "base").ret == 0

    def run(doc, *args, rc=0):
        # test_slow alone (test_fast deselected): its comparison prints doc and exits rc
        (tmp_path / "doc.json").write_text(json.dumps(doc))
        log.write_text("")
        monkeypatch.setenv("FAKE_COMPARE", str(tmp_path / "doc.json"))
        monkeypatch.setenv("FAKE_COMPARE_RC", str(rc))
        res = pytester.runpytest(*_plugin_args(), "--jitbench-compare", "base", *args, "-k", "slow")
        calls = [json.loads(line) for line in log.read_text().splitlines()]
        return res, [c for c in calls if c[0] == "compare"]

    return run


def test_a_regression_fails_the_test_that_measured_it_with_the_rows_that_failed_it(gate):
    res, (argv,) = gate(document([CONFIRMED, row("warm_call_s", "ok")], rc=1,
                                 remeasure={"dir": "/x/new.remeasure", "cases": ["numpy_plain_1_f32"]}),
                        "--jitbench-fail-on-regression", "10", rc=1)
    res.assert_outcomes(failed=1, deselected=1)  # the test that regressed: never "1 passed" and exit 1
    assert res.ret == pytest.ExitCode.TESTS_FAILED
    out = res.stdout.str()
    report = failure_report(out, "test_slow")
    assert "test_slow" in report and "cold_ttfr_s" in report and "warm_call_s" not in report, report
    assert "confirmed by re-measurement: 3.000 [2.800–3.200] slower (busy, busy)" in report, report
    # The summary's table: every row judged, each side's grade with the CPUs others took.
    res.stdout.fnmatch_lines(["*compared with *base, failing above 10% regression, re-measuring*",
                              "*test_slow::slow: 1 of 2 metrics differ significantly*",
                              "*gate: REGRESSED beyond 10%, decided by numpy_plain_1_f32 cold_ttfr_s (time) slower*",
                              "*case*metric*base*new*ratio [[]95% CI]*grade B, N*verdict*gate*",
                              "*cold_ttfr_s*10.00 ms*31.00 ms*3.100 [[]2.945–3.255]*busy (others 1.4 CPUs), contended "
                              "(others 1.7 CPUs)*slower*confirmed by re-measurement*",
                              "*warm_call_s*quiet, quiet*no significant change*ok*",
                              "*re-measured 1 case(s), BASE and NEW interleaved, in /x/new.remeasure*",
                              "*the gate failed the test(s) test_perf.py::test_slow*"])
    assert "measurement(s) in" not in out.split("compared with")[1]  # the table, not a count
    assert "--no-remeasure" not in argv and argv[argv.index("--fail-on-regression") + 1] == "10.0"


def test_the_instruction_count_that_decided_is_named(gate):
    res, _ = gate(document([row("cold_ttfr_s", "left to instruction counts", "slower", 1.5, grades=("busy", "busy")),
                            COUNTED], rc=1, cannot="its code is not pinned (a measure target importing helpers)"),
                  "--jitbench-fail-on-regression", "10", rc=1)
    res.assert_outcomes(failed=1, deselected=1)
    res.stdout.fnmatch_lines(["*gate: REGRESSED beyond 10%, decided by numpy_plain_1_f32 instructions_ttfr "
                              "(instruction count) more instructions 1.3000*",
                              "*cannot re-measure BASE: its code is not pinned*"])
    report = failure_report(res.stdout.str(), "test_slow")
    assert "instructions_ttfr" in report and "left to instruction counts" not in report


def test_a_time_left_to_its_counts_or_cleared_passes_and_says_so(gate):
    cleared = row("warm_call_s", "cleared by re-measurement", "slower", 1.4, grades=("quiet", "busy"),
                  remeasured={"n_base": 5, "n_new": 5, "base_median": 0.01, "new_median": 0.0101, "ratio": 1.01,
                              "ratio_ci_low": 0.97, "ratio_ci_high": 1.05, "p_value": 0.6,
                              "verdict": "no significant change", "base_grade": "quiet", "new_grade": "quiet"})
    left = row("cold_ttfr_s", "left to instruction counts", "slower", 1.5, grades=("busy", "busy"))
    counted = row("instructions_ttfr", "ok", "within spread", 1.001, rule="spread")
    res, _ = gate(document([cleared, left, counted]), "--jitbench-fail-on-regression", "10")
    res.assert_outcomes(passed=1, deselected=1)
    res.stdout.fnmatch_lines(["*gate: ok: no metric regressed beyond 10% (2 judged: instruction counts and times); "
                              "warm_call_s cleared by re-measurement; cold_ttfr_s left to the instruction counts "
                              "(not confirmed, not failing)*"])


def test_remeasure_options_reach_compare(gate, pytester):
    _, (argv,) = gate(document([row("cold_ttfr_s", "ok")]), "--jitbench-fail-on-regression", "10",
                      "--no-jitbench-remeasure")
    assert "--no-remeasure" in argv
    res, (argv,) = gate(document([row("cold_ttfr_s", "ok")]), "--jitbench-fail-on-regression", "10",
                        "--jitbench-remeasure")
    assert "--no-remeasure" not in argv and res.ret == 0
    res.stdout.fnmatch_lines(["*re-measuring (interleaved) before failing where a side was not quiet*"])
    res = pytester.runpytest(*_plugin_args(), "--jitbench-compare", "base", "--jitbench-remeasure")
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    res.stderr.fnmatch_lines(["*--jitbench-remeasure / --no-jitbench-remeasure*give --jitbench-fail-on-regression*"])


def test_where_a_side_was_not_quiet_the_options_that_help_are_named(gate):
    busy = row("cold_ttfr_s", "regression", "slower", 1.5, grades=("quiet", "busy"))
    res, _ = gate(document([busy], rc=1), "--jitbench-fail-on-regression", "10", "--no-jitbench-remeasure", rc=1)
    res.stdout.fnmatch_lines(["*not quiet: 1 of 1 rows had a side measured on a busy or contended machine*: without "
                              "--no-jitbench-remeasure the gate measures such rows again*; --jitbench-count "
                              "instructions adds counts*"])
    res, _ = gate(document([busy, COUNTED], rc=1), "--jitbench-fail-on-regression", "10", rc=1)
    assert "not quiet:" not in res.stdout.str()  # re-measuring, and counting: nothing more to offer
    res, _ = gate(document([row("cold_ttfr_s", "ok")]), "--jitbench-fail-on-regression", "10",
                  "--no-jitbench-remeasure")
    assert "not quiet:" not in res.stdout.str()  # quiet on both sides: said nowhere


def test_a_comparison_that_could_not_be_made_fails_the_test_naming_it(gate):
    res, _ = gate(document([]), "--jitbench-fail-on-regression", "10", rc=2)
    res.assert_outcomes(failed=1, deselected=1)
    res.stdout.fnmatch_lines(["*jitbench: test_perf.py::test_slow::slow not compared with *: jitbench compare exited "
                              "2: *not a run dir*"])


def test_the_job_summary_receives_the_table_appended(gate, tmp_path, monkeypatch):
    summary = tmp_path / "step_summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    res, _ = gate(document([CONFIRMED], rc=1, remeasure={"dir": "/x/r", "cases": ["numpy_plain_1_f32"]}),
                  "--jitbench-fail-on-regression", "10", rc=1)
    assert res.ret == pytest.ExitCode.TESTS_FAILED
    text = summary.read_text()
    assert text.startswith("earlier step\n"), text  # appended, never truncated
    lines = text.splitlines()
    assert "### jitbench: compared with `" in text and "failing above 10%" in text
    assert "| test | case | metric | base | new | ratio [95% CI] | grade B, N | verdict | gate |" in lines
    (slow,) = [line for line in lines if line.startswith("| test_perf.py::test_slow::slow |")]
    assert "| cold_ttfr_s | 10.00 ms | 31.00 ms | 3.100 [2.945–3.255] |" in slow
    assert "busy (others 1.4 CPUs), contended (others 1.7 CPUs)" in slow and "confirmed by re-measurement" in slow
    assert any(line.startswith("**The gate fails**: test_perf.py::test_slow::slow") for line in lines), text
    assert "- test_perf.py::test_slow::slow: re-measured 1 case(s), BASE and NEW interleaved" in lines
    # The plugin's table only: compare itself was not let write the summary once per measurement.
    assert text.count("### ") == 1
    # A second session appends below the first.
    gate(document([row("cold_ttfr_s", "ok")]), "--jitbench-fail-on-regression", "10")
    assert summary.read_text().startswith(text) and summary.read_text().count("The gate passes") == 1


def test_a_saved_session_leaves_its_times_in_the_job_summary(pytester, gate, tmp_path, monkeypatch):
    summary = tmp_path / "saved.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert pytester.runpytest(*_plugin_args(), "--jitbench-save", "again").ret == 0
    golden = jb.load(GOLDEN)
    lines = summary.read_text().splitlines()
    assert lines[0] == "### jitbench: measurements saved as `again`"
    rows = [line for line in lines if line.startswith("| test_perf.py::test_slow::slow |")]
    assert len(rows) == len(golden.cases) and all(f"| {c.name} | {c.status} |" in "".join(rows)
                                                 for c in golden.cases), rows
    assert f"| {_gate.value('cold_ttfr_s', golden.cases[0].ttfr.median)} |" in rows[0]
    # Neither saved nor compared: the summary is left alone.
    summary.unlink()
    assert pytester.runpytest(*_plugin_args()).ret == 0 and not summary.exists()


def test_an_unwritable_job_summary_is_a_warning_not_a_failed_gate(gate, tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path))  # a directory: cannot be appended to
    res, _ = gate(document([row("cold_ttfr_s", "ok")]), "--jitbench-fail-on-regression", "10")
    assert res.ret == 0
    res.stdout.fnmatch_lines(["*jitbench: warning: GITHUB_STEP_SUMMARY=*: the job summary was not written*"])


def test_a_fifo_job_summary_is_a_warning_never_a_wait(gate, tmp_path, monkeypatch):
    # Opening a FIFO to write waits for a reader: the plugin (and compare) take only a regular file.
    fifo = tmp_path / "summary.fifo"
    os.mkfifo(fifo)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(fifo))
    res, _ = gate(document([row("cold_ttfr_s", "ok")]), "--jitbench-fail-on-regression", "10")
    assert res.ret == 0
    res.stdout.fnmatch_lines(["*GITHUB_STEP_SUMMARY=*: the job summary was not written (not a regular file)*"])


def test_a_threshold_of_zero_and_xdist_are_usage_errors(gate, pytester):
    res = pytester.runpytest(*_plugin_args(), "--jitbench-compare", "base", "--jitbench-fail-on-regression", "0")
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    res.stderr.fnmatch_lines(["*a finite PCT > 0*"])
    res = pytester.runpytest(*_plugin_args(), "-p", "xdist", "-n", "2", "--jitbench-compare", "base")
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    res.stderr.fnmatch_lines(["*cannot run under pytest-xdist (-n)*"])


def test_the_gate_lines_are_made_from_the_rows_alone():
    """decided() on comparisons built by hand: what each gate word leads to."""
    def cmp(*rows, rc=0):
        return jb.Comparison([jb.api._compare_row(r, {}) for r in rows], [], rc, "")
    assert _gate.decided(cmp(row("cold_ttfr_s", None)), None) == "not gated (no --jitbench-fail-on-regression)"
    assert _gate.decided(cmp(row("cold_ttfr_s", "not judged", "too few runs")), 5).startswith(
        "ok: no metric regressed beyond 5% (0 judged: none; 1 not judged)")
    assert _gate.decided(cmp(row("peak_rss_kib", "ok"), row("cold_ttfr_s", "not judged")), 10) == \
        "ok: no metric regressed beyond 10% (1 judged: memory; 1 not judged)"
    failing = cmp(COUNTED, rc=1)
    assert [r.metric for r in failing.failing()] == ["instructions_ttfr"] and failing.rows[0].rule == "spread"
    assert failing.rows[0].quiet  # both sides quiet in COUNTED
    assert cmp(CONFIRMED).rows[0].quiet is False and cmp(CONFIRMED).rows[0].remeasured.ratio == 3.0
