"""Interference, measured per process (docs/noise.md, "Interference"): what else
the machine did while each worker ran, a flag beside the status, the case's
share in analysis.json, summary.md and compare, and an ahead-of-time
cross-check that disagrees on an interfered run.

Deterministic tests feed jitbench the /proc/stat snapshots through
JITBENCH_TEST_MACHINE_SAMPLES (two per measured process, in the order the
processes run); one test runs a real CPU hog beside a sleeping fake worker and
asserts only what a hog must cause, never that a real machine was quiet."""

import json
import os
import re
import subprocess
import sys

import pytest

from conftest import machine_samples, validate

pytestmark = pytest.mark.quick

CASES = ["--cases", "matmul_8_f32", "--cold-runs", "2", "--warm-iters", "3"]


def write_samples(d, kinds):
    return machine_samples(d, kinds)


def test_each_process_records_its_interference_beside_its_status(jitbench, fake_env, tmp_path):
    # cold 0 quiet, cold 1 beside a hog, the warm process not reported.
    env = dict(fake_env(), **write_samples(tmp_path / "samples", ["quiet", "hog", None]))
    res = jitbench("run", *CASES, "--backends", "numpy", env=env)
    assert res.rc == 0, res.stderr
    case = res.case("numpy_matmul_8_f32")
    validate(case, "jitbench.case.v7")
    assert case["status"] == "ok"  # the flag is beside the status, never part of it
    cold = [r["interference"] for r in case["cold"]["runs"]]
    assert [r["status"] for r in case["cold"]["runs"]] == ["ok", "ok"]
    assert [x["interfered"] for x in cold] == [False, True]
    # The injected hog's 1000 s are more than 2 CPUs had in the process's life: capped at the machine's capacity.
    assert cold[1]["other_cpu_s"] == pytest.approx(2 * cold[1]["wall_s"] + 0.02) and cold[1]["n_cpus"] == 2
    assert cold[1]["load_start"] == 0.5 and cold[1]["load_end"] == 2.75
    assert cold[0]["other_cpu_s"] == 0 and cold[0]["worker_cpu_s"] > 0
    assert cold[0]["wall_s"] == case["cold"]["runs"][0]["wall_s"]
    assert case["warm"]["runs"][0]["interference"] is None  # not reported, never "quiet"

    analysis = json.loads((res.out / "analysis.json").read_text())
    validate(analysis, "jitbench.analysis.v5")
    share = analysis["cases"][0]["interference"]
    counts = ("runs", "reported", "interfered", "quiet", "busy", "contended", "grade")
    assert {k: share["cold"][k] for k in counts} == {"runs": 2, "reported": 2, "interfered": 1, "quiet": 1, "busy": 0,
                                                     "contended": 1, "grade": "contended"}  # the upper median
    assert share["cold"]["others_cpus_median"] >= 1  # of [0, the hog capped at 2 CPUs]: at least half of 2
    assert share["warm"] == {"runs": 1, "reported": 0, "interfered": 0, "grade": "not reported",
                             "others_cpus_median": None, "quiet": 0, "busy": 0, "contended": 0}
    md = (res.out / "summary.md").read_text()
    assert "## Interference" in md
    assert "1 of 2 measured processes were interfered with" in md
    assert "Not reported for 1 more" in md
    assert re.search(r"- `numpy_matmul_8_f32`: cold runs contended \(others [0-9.]+ of 2 CPUs; 1/2 interfered with\)",
                     md), md
    assert jitbench("validate", str(res.out)).rc == 0

    report = jitbench("report", str(res.out))
    assert report.rc == 0, report.stderr
    page = (res.out / "report" / "report.md").read_text()
    assert re.search(r"cold runs contended \(others [0-9.]+ of 2 CPUs; 1/2 interfered with\)", page), page
    # report.html: the run's line in the table, each case's folded into one "interfered" line the reader opens.
    html = (res.out / "report" / "report.html").read_text()
    warnings = html.split("<section id='warnings'>")[1].split("</section>")[0]
    folded = warnings.split("<details><summary><b>interfered</b>")[1].split("</details>")[0]
    assert "numpy_matmul_8_f32" in folded and "1/2 interfered with" in folded, warnings
    table = warnings.split("<details>")[0]
    assert "the run" in table and "numpy_matmul_8_f32" not in table, warnings


def test_a_quiet_machine_is_not_flagged(jitbench, fake_env, tmp_path):
    env = dict(fake_env(), **write_samples(tmp_path / "samples", ["quiet", "quiet", "quiet"]))
    res = jitbench("run", *CASES, "--backends", "numpy", env=env)
    assert res.rc == 0, res.stderr
    case = res.case("numpy_matmul_8_f32")
    runs = case["cold"]["runs"] + case["warm"]["runs"]
    assert [r["interference"]["interfered"] for r in runs] == [False, False, False]
    assert "Grade: quiet. No measured process was interfered with (3 measured; " in (res.out / "summary.md").read_text()


def test_steal_time_is_interference(jitbench, fake_env, tmp_path):
    env = dict(fake_env(), **write_samples(tmp_path / "samples", ["steal"]))
    (tmp_path / "samples" / "loadavg.0").unlink()
    res = jitbench("run", "--cases", "matmul_8_f32", "--cold-runs", "1", "--warm-iters", "0",
                   "--backends", "numpy", env=env)
    assert res.rc == 0, res.stderr
    x = res.case("numpy_matmul_8_f32")["cold"]["runs"][0]["interference"]
    # 500 s of steal, capped at what the process's wall time allows on its CPUs (docs/noise.md).
    assert x["steal_s"] == pytest.approx(x["n_cpus"] * x["wall_s"] + x["n_cpus"] / 100)
    assert x["other_cpu_s"] == 0 and x["interfered"] is True
    assert x["load_start"] is None and x["load_end"] == 2.75  # no loadavg snapshot: that figure is null


def test_a_real_hog_is_seen(jitbench, fake_env):
    """A fake worker that sleeps 1.5 s while one busy loop per CPU runs: the
    CPU time of everything else is far above what the worker left idle."""
    hogs = [subprocess.Popen([sys.executable, "-c", "import time\nt = time.time() + 60\nwhile time.time() < t: pass"])
            for _ in range(os.cpu_count() or 2)]
    try:
        env = dict(fake_env(numpy="slow"), FAKE_WORKER_SLEEP="1.5")
        res = jitbench("run", "--cases", "matmul_8_f32", "--cold-runs", "1", "--warm-iters", "0",
                       "--backends", "numpy", env=env)
    finally:
        for h in hogs:
            h.kill()
            h.wait()
    assert res.rc == 0, res.stderr
    x = res.case("numpy_matmul_8_f32")["cold"]["runs"][0]["interference"]
    assert x["interfered"] is True, x
    assert x["other_cpu_s"] > x["wall_s"] * 0.5 * x["n_cpus"], x


def test_a_run_without_injection_reports_a_boolean(jitbench, fake_env):
    # A real machine: whatever it did, the figures are there and the flag is a boolean.
    res = jitbench("run", "--cases", "matmul_8_f32", "--cold-runs", "1", "--warm-iters", "2",
                   "--backends", "numpy", env=fake_env())
    assert res.rc == 0, res.stderr
    case = res.case("numpy_matmul_8_f32")
    for run in case["cold"]["runs"] + case["warm"]["runs"]:
        x = run["interference"]
        assert isinstance(x["interfered"], bool) and x["n_cpus"] >= 1 and x["wall_s"] > 0
    validate(case, "jitbench.case.v7")


def test_a_crosscheck_that_disagrees_on_an_interfered_run_is_not_a_warning(jitbench, fake_env, tmp_path):
    # cold 0, cold 1, the ahead-of-time process (beside a hog), the warm process.
    env = dict(fake_env(jax_jit_cpu="phases_disagree"),
               **write_samples(tmp_path / "samples", ["quiet", "quiet", "hog", "quiet"]))
    res = jitbench("run", *CASES, "--backends", "jax_jit_cpu", env=env)
    assert res.rc == 0, res.stderr
    case = res.case("jax_jit_cpu_matmul_8_f32")
    assert (case["status"], case["reason"]) == ("ok", None)
    assert case["crosscheck"]["interference"]["interfered"] is True
    verdict = case["crosscheck_verdict"]
    assert verdict["agrees"] is False and verdict["interfered"] is True
    assert any(s["step"] == "compile" and not s["agrees"] for s in verdict["steps"])  # the figures are kept
    analysis = json.loads((res.out / "analysis.json").read_text())
    assert analysis["cases"][0]["crosscheck"]["interfered"] is True
    md = (res.out / "summary.md").read_text()
    assert "disagrees (interfered: not a warning)" in md
    assert "its ahead-of-time cross-check disagreed on an interfered run" in md
    assert jitbench("validate", str(res.out)).rc == 0
    # The same disagreement on a quiet machine warns, as before.
    env = dict(fake_env(jax_jit_cpu="phases_disagree"),
               **write_samples(tmp_path / "quiet", ["quiet", "quiet", "quiet", "quiet"]))
    quiet = jitbench("run", *CASES, "--backends", "jax_jit_cpu", env=env)
    c = quiet.case("jax_jit_cpu_matmul_8_f32")
    assert (c["status"], c["reason"]) == ("warn", "crosscheck_disagrees")
    assert c["crosscheck_verdict"]["interfered"] is False


def test_compare_shows_each_sides_interference_and_the_gate_says_so(jitbench, fake_env, tmp_path):
    runs = ["--cases", "matmul_8_f32", "--cold-runs", "5", "--warm-iters", "0", "--backends", "numpy"]
    base = jitbench("run", *runs, env=dict(fake_env(), **write_samples(tmp_path / "b", ["quiet"] * 5)))
    slow = dict(fake_env(), FAKE_WORKER_SCALE="3",
                **write_samples(tmp_path / "n", ["hog", "hog", "quiet", "quiet", None]))
    new = jitbench("run", *runs, env=slow)
    assert base.rc == 0 and new.rc == 0, base.stderr + new.stderr
    res = jitbench("compare", str(base.out), str(new.out), "--csv", str(tmp_path / "c.csv"),
                   "--fail-on-regression", "10", "--no-remeasure")
    assert res.rc == 1, res.stdout + res.stderr  # judged as measured: a regression, with the same exit code
    row = next(line for line in res.stdout.splitlines() if "cold_ttfr_s" in line)
    assert re.search(r"quiet, contended [0-9.]+  slower$", row), row  # the verdict stays the line's last word
    assert "measured while the machine interfered (grades BASE quiet, NEW " in res.stderr, res.stderr
    assert "; interfered with: BASE 0/5, NEW 2/5)" in res.stderr, res.stderr
    # NEW's grade is contended (2 of its 4 reported processes): the line says so and names what helps.
    assert "measured while a side was not quiet" in res.stderr and "leave out --no-remeasure" in res.stderr
    import csv
    rows = {r["metric"]: r for r in csv.DictReader(open(tmp_path / "c.csv"))}
    assert (rows["cold_ttfr_s"]["base_interfered"], rows["cold_ttfr_s"]["new_interfered"]) == ("0", "2")
    assert rows["cold_ttfr_s"]["new_runs"] == "5"
    # Two quiet runs: the regression alone, no word of interference.
    quiet_new = jitbench("run", *runs, env=dict(fake_env(), FAKE_WORKER_SCALE="3",
                                                **write_samples(tmp_path / "q", ["quiet"] * 5)))
    res = jitbench("compare", str(base.out), str(quiet_new.out), "--fail-on-regression", "10", "--no-remeasure")
    assert res.rc == 1
    assert "quiet, quiet  slower" in res.stdout
    assert "measured while the machine interfered" not in res.stderr
