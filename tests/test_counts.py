"""Instructions counted per phase (run --count instructions; docs/noise.md,
"Instructions"): counting processes of their own after each case's timed
ones, the source chosen (a hardware counter where one opens, else valgrind)
and recorded, the counts judged by compare, bisect and the pytest plugin by
their spread, what cannot be counted said so, and a worker that lies about
its counts caught.

This machine has no PMU, so the hardware path runs on a fake one
(JITBENCH_TEST_FAKE_PMU=1: the counting library "opens" and reads the thread's
CPU time; the fake worker reports its own numbers); valgrind counts a real
numpy worker in the two heavy tests."""

import json
import os
import re
import sys

import pytest

from conftest import ROOT, validate
from test_python_api import _plugin_args

pytestmark = pytest.mark.quick

sys.path.insert(0, str(ROOT / "python"))  # this tree's package, whatever .venv has installed
import jitbench as jb  # noqa: E402

pytest_plugins = ["pytester"]

CASE = ["--cases", "matmul_8_f32", "--backends", "numpy", "--cold-runs", "2", "--warm-iters", "2"]
FAKE_PMU = {"JITBENCH_TEST_FAKE_PMU": "1"}


def counted(jitbench, env, *extra, **kw):
    return jitbench("run", *CASE, "--count", "instructions", *extra, env={**env, **FAKE_PMU}, **kw)


def phases(case):
    return {p["phase"]: p for p in case["counts"]["summary"]["phases"]}


# -- what a run records -----------------------------------------------------------------------------
def test_a_run_counts_each_phase_in_processes_of_its_own_with_the_source_it_chose(jitbench, fake_env):
    res = counted(jitbench, fake_env(), "--count-runs", "3")
    assert res.rc == 0, res.stderr
    assert "JITBENCH_TEST_FAKE_PMU=1 is set" in res.stderr  # a fake counter is never silent
    case = res.case("numpy_matmul_8_f32")
    validate(case, "jitbench.case.v7")
    assert case["status"] == "ok", case["detail"]
    counts = case["counts"]
    setup = counts["setup"]
    assert (setup["source"], setup["tool"]) == ("hardware", "perf_event_open")
    assert setup["chosen"].startswith("automatic: a hardware instruction counter opens here")
    assert setup["controls"]["PYTHONHASHSEED"] == "0" and "aslr" in setup["controls"]
    assert counts["runs_requested"] == 3 and len(counts["runs"]) == 3
    assert all(r["mode"] == "count" and r["status"] == "ok" for r in counts["runs"])
    assert [s["name"] for s in counts["runs"][0]["counts"]["segments"]] == [
        "harness_start", "import", "setup", "first_call", "second_call", "warm_calls"]
    p = phases(case)
    assert list(p) == ["import", "setup", "first_call", "ttfr", "second_call", "warm_call"]
    assert p["import"]["n"] == 3 and 0 <= p["import"]["spread_pct"] < 1  # the fake's 0.05% sigma
    assert abs(p["warm_call"]["median"] - 1e5) < 1e3  # per call, over the 2 calls counted (--warm-iters 2)
    assert setup["calls"] == 2 and all(r["worker"]["count"]["warm_calls"] == 2 for r in counts["runs"])
    assert p["ttfr"]["median"] == pytest.approx(p["import"]["median"] + p["setup"]["median"] +
                                                p["first_call"]["median"], rel=2e-3)
    # The timed runs are untouched: their logs and counts as without --count; the counting processes' own.
    assert len(case["cold"]["runs"]) == 2 and len(case["warm"]["runs"]) == 1
    assert all((res.out / "logs" / "numpy_matmul_8_f32" / f"count-{i}.log").is_file() for i in range(3))
    summary = (res.out / "summary.md").read_text()
    section = summary.split("## Instructions")[1]
    assert "| `numpy_matmul_8_f32` | hardware | `import` |" in section, section
    assert jitbench("validate", str(res.out), out=False).rc == 0


def test_without_count_nothing_changes(jitbench, fake_env):
    res = jitbench("run", *CASE, env=fake_env())
    assert res.rc == 0, res.stderr
    case = res.case("numpy_matmul_8_f32")
    assert "counts" not in case  # an optional addition: absent, not null
    assert "## Instructions" not in (res.out / "summary.md").read_text()


def test_the_real_worker_counts_through_the_library_on_the_hardware_path(jitbench):
    """The real worker, the counting library (native/count.cc) loaded by path,
    and the fake PMU: every mark in order, each read by the worker itself."""
    res = jitbench("run", "--cases", "matmul_16_f32", "--backends", "numpy", "--cold-runs", "1", "--warm-iters", "2",
                   "--count", "instructions:hardware", env=FAKE_PMU, timeout=300)
    assert res.rc == 0, res.stderr
    case = res.case("numpy_matmul_16_f32")
    assert case["status"] == "ok", case["detail"]
    run = case["counts"]["runs"][0]
    assert run["counts"]["fake"] is True and run["counts"]["source"] == "hardware"
    assert run["worker"]["count"]["first_call_split"] == "undivided: nothing is compiled"
    assert [s["name"] for s in run["counts"]["segments"]] == [
        "harness_start", "import", "setup", "first_call", "second_call", "warm_calls"]
    assert phases(case)["import"]["median"] > 0


# -- what cannot be counted, and bad input ----------------------------------------------------------
def test_a_gpu_case_and_a_warm_cache_case_say_they_were_not_counted(jitbench, fake_env):
    res = jitbench("run", "--cases", "matmul_8_f32", "--backends", "numba,jax_jit_gpu", "--cold-runs", "1",
                   "--warm-iters", "2", "--cache-policy", "cold_cache,warm_cache", "--count", "instructions",
                   env={**fake_env(), **FAKE_PMU, "JITBENCH_TEST_GPU_ON_CPU": "1"})
    statuses = {p.stem: json.loads(p.read_text()) for p in (res.out / "cases").glob("*.json")}
    gpu = statuses["jax_jit_gpu_matmul_8_f32"]
    assert (gpu["status"], gpu["reason"].split(":")[0]) == ("warn", "count_unsupported"), gpu["reason"]
    assert "GPU" in gpu["counts"]["unsupported"] and gpu["counts"]["runs"] == []
    warm = statuses["numba_matmul_8_f32__warm_cache"]
    assert warm["reason"].startswith("count_unsupported: warm_cache"), warm["reason"]
    assert statuses["numba_matmul_8_f32"]["status"] == "ok"
    assert "not counted: a GPU backend" in (res.out / "summary.md").read_text().split("## Instructions")[1]


def test_a_counting_process_that_crashes_warns_and_the_times_stand(jitbench, fake_env):
    res = counted(jitbench, fake_env(numpy="crash_count"))
    case = res.case("numpy_matmul_8_f32")
    assert (case["status"], case["reason"]) == ("warn", "count_failed"), case["detail"]
    assert all(r["status"] == "ok" for r in case["cold"]["runs"])
    assert "counted nothing" in (res.out / "summary.md").read_text().split("## Instructions")[1]


@pytest.mark.parametrize("lie,says", [
    ("lie_counts", "segments are not the marks"),
    ("disorder_marks", "the worker marked 'warm_calls' before 'second_call'"),
])
def test_a_worker_whose_counts_are_not_its_marks_fails(jitbench, fake_env, lie, says):
    res = counted(jitbench, fake_env(numpy=lie))
    case = res.case("numpy_matmul_8_f32")
    assert (case["status"], case["reason"]) == ("failed", "protocol_violation: counts"), case["detail"]
    assert says in case["detail"], case["detail"]


def test_a_worker_claiming_valgrinds_counts_without_callgrind_fails(jitbench, fake_env):
    """Forced to valgrind, the fake worker runs under it but never asks callgrind
    for a dump: the marks it names have no counts behind them."""
    if not os.path.exists("/usr/bin/valgrind"):
        pytest.skip("valgrind is installed by scripts/setup.sh --for-tests")
    res = jitbench("run", *CASE, "--count", "instructions:valgrind", env=fake_env(), timeout=300)
    case = res.case("numpy_matmul_8_f32")
    assert case["reason"] == "protocol_violation: counts", case["detail"]
    assert "callgrind dumped 0 time(s)" in case["detail"]


@pytest.mark.parametrize("args,says", [
    (["--count-runs", "3"], "--count-runs and --jobs are --count's: add --count instructions"),
    (["--count", "instructions", "--count-runs", "1"], "--count-runs"),
    (["--count", "cycles"], "--count"),
])
def test_bad_counting_options_are_one_line_and_exit_2(jitbench, fake_env, args, says):
    res = jitbench("run", *CASE, *args, env=fake_env())
    assert res.rc == 2, res.stderr
    assert says in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert not res.out.exists()


def test_a_hardware_counter_asked_for_where_none_opens_is_refused(jitbench, fake_env):
    res = jitbench("run", *CASE, "--count", "instructions:hardware", env=fake_env())
    if res.rc == 0:
        pytest.skip("this machine has a hardware instruction counter")
    assert res.rc == 2
    assert "--count instructions:hardware: perf_event_open" in res.stderr, res.stderr
    assert "count under valgrind instead" in res.stderr


def test_the_suite_key_turns_counting_on(jitbench, fake_env, tmp_path):
    suite = tmp_path / "counted.toml"
    suite.write_text('[suite]\nname = "counted"\ncold_runs = 1\nwarm_iters = 2\ncount = ["instructions"]\n'
                     'count_runs = 2\n[[matrix]]\nbackends = ["numpy"]\nworkloads = ["matmul"]\nsizes = [8]\n'
                     'dtypes = ["f32"]\n')
    res = jitbench("run", "--suite", str(suite), env={**fake_env(), **FAKE_PMU})
    assert res.rc == 0, res.stderr
    assert len(res.case("numpy_matmul_8_f32")["counts"]["runs"]) == 2
    suite.write_text(suite.read_text().replace('count = ["instructions"]', 'count = ["cycles"]'))
    bad = jitbench("run", "--suite", str(suite), env=fake_env())
    assert bad.rc == 2 and "what can be counted is instructions" in bad.stderr, bad.stderr


# -- judged on counts -------------------------------------------------------------------------------
# Timed processes 40% apart from one process to the next (a loaded machine), counts 0.05% apart.
NOISY = {"FAKE_WORKER_JITTER": "0.4"}


def test_compare_judges_counts_by_their_spread_beside_the_times(jitbench, fake_env):
    base = counted(jitbench, {**fake_env(), **NOISY})
    same = counted(jitbench, {**fake_env(), **NOISY})
    more = counted(jitbench, {**fake_env(), **NOISY, "FAKE_WORKER_COUNT_SCALE": "1.2"})
    for r in (base, same, more):
        assert r.rc == 0, r.stderr
    # --no-remeasure: judged as measured (the fake counter's scale is the runs' environment, not their code).
    ok = jitbench("compare", str(base.out), str(same.out), "--fail-on-regression", "2", "--no-remeasure")
    assert ok.rc == 0, ok.stdout + ok.stderr
    rows = {line.split()[1]: line for line in ok.stdout.splitlines() if line.startswith("numpy_matmul_8_f32")}
    # Within 1% whatever the draw (the verdict on so small a jitter is Lord's test's, 5% of A/A pairs by design:
    # src/compare/metrics_test.cc); the time rows beside them, 40% apart, decide nothing at 2%.
    lo, hi = (float(x) for x in rows["instructions_import"].split("[")[1].split("]")[0].split("–"))
    assert 0.99 < lo <= hi < 1.01, rows["instructions_import"]
    assert " — " in rows["instructions_import"]  # no p: no test
    bad = jitbench("compare", str(base.out), str(more.out), "--fail-on-regression", "10", "--no-remeasure")
    assert bad.rc == 1, bad.stdout + bad.stderr
    assert re.search(r"regression: numpy_matmul_8_f32 instructions_import is (19\.9|20\.[01])\d% more", bad.stderr), \
        bad.stderr  # 20%, give or take the fake counter's 0.05% jitter
    assert "its processes' spread" in bad.stderr
    # Through the Python API (what the pytest plugin reads): each row's rule, the regression.
    cmp = jb.compare(base.out, more.out, fail_on_regression=10)
    counts = {r.metric: r for r in cmp.rows if r.rule == "spread"}
    assert counts["instructions_import"].verdict == "more instructions" and cmp.regressed
    assert {r.rule for r in cmp.rows} == {"spread", "mann_whitney"}


def test_counts_under_other_threads_or_calls_are_left_out_and_said(jitbench, fake_env):
    """Another thread setting: no instruction row, said on stdout, in the JSON and to the API (the plugin's
    line); another number of warm calls counted: only the warm call's row is left out."""
    env = {**fake_env(), **NOISY}
    base = counted(jitbench, env)
    threads = counted(jitbench, {**env, "OMP_NUM_THREADS": "3"})
    calls = jitbench("run", *CASE[:6], "--warm-iters", "3", "--count", "instructions", env={**env, **FAKE_PMU})
    for r in (base, threads, calls):
        assert r.rc == 0, r.stderr
    res = jitbench("compare", str(base.out), str(threads.out), "--format", "json")
    doc = json.loads(res.stdout)
    assert not [r for r in doc["rows"] if r["metric"].startswith("instructions_")], doc["rows"]
    (said,) = doc["not_compared"]
    assert "threads control differs" in said and "OMP_NUM_THREADS=3" in said, said
    assert said in jitbench("compare", str(base.out), str(threads.out)).stdout
    cmp = jb.compare(base.out, threads.out)
    assert cmp.not_compared == [said] and not [r for r in cmp.rows if r.rule == "spread"]
    doc = json.loads(jitbench("compare", str(base.out), str(calls.out), "--format", "json").stdout)
    metrics = {r["metric"] for r in doc["rows"]}
    assert "instructions_import" in metrics and "instructions_warm_call" not in metrics, metrics
    (said,) = doc["not_compared"]
    assert "instructions_warm_call not compared: BASE counted 2 warm calls per process, NEW 3" in said, said


def test_a_time_that_moves_without_its_count_is_said(jitbench, fake_env):
    """30x the time, the same instructions: said (a compile that waits)."""
    five = ["--cold-runs", "5", "--count", "instructions"]
    exact = {**fake_env(), **FAKE_PMU, "FAKE_WORKER_COUNT_JITTER": "0"}  # equal counts: "within spread" every time
    base = jitbench("run", *CASE[:4], *CASE[6:], *five, env=exact)
    slow = jitbench("run", *CASE[:4], *CASE[6:], *five, env={**exact, "FAKE_WORKER_SCALE": "30"})
    assert base.rc == 0 and slow.rc == 0, base.stderr + slow.stderr
    res = jitbench("compare", str(base.out), str(slow.out))
    block = res.stdout.split("Time and instructions disagree")[1]
    assert "cold_import_s is slower" in block and "instructions_import is within spread" in block, block
    assert jb.compare(base.out, slow.out).disagreements


def test_the_plugin_passes_count_to_every_measurement(pytester, monkeypatch, tmp_path):
    """--jitbench-count instructions: every measurement of the session counts
    (the comparison then judges the counts as compare does, above)."""
    log = tmp_path / "argv.log"
    fake = tmp_path / "fake-jitbench"
    fake.write_text(f"#!{sys.executable}\nimport json, sys\nopen({str(log)!r}, 'a').write(json.dumps(sys.argv[1:]) + "
                    "'\\n')\nsys.exit(3)\n")
    fake.chmod(0o755)
    monkeypatch.setenv("JITBENCH_BIN", str(fake))
    pytester.makepyfile(test_c="""
        import pytest
        from jitbench import JitbenchError

        def test_m(jitbench):
            with pytest.raises(JitbenchError):
                jitbench.run_workload("w.py", cases="w_8_f32")
    """)
    res = pytester.runpytest(*_plugin_args(), "--jitbench-count", "instructions")
    res.assert_outcomes(passed=1)
    (argv,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert argv[argv.index("--count") + 1] == "instructions", argv
    bad = pytester.runpytest(*_plugin_args(), "--jitbench-count", "cycles")
    assert bad.ret != 0


# -- real valgrind ----------------------------------------------------------------------------------
@pytest.mark.heavy("valgrind")
def test_valgrind_counts_a_numpy_worker_per_phase_within_a_fraction_of_a_percent(jitbench):
    """Two counting processes of the real numpy worker under callgrind, at
    once (--jobs 2): every phase counted, run to run within 1%, the tool, its
    version and the controls recorded. Without --deterministic: the counting
    processes get one BLAS/OpenMP thread themselves (with the default pool,
    OpenBLAS's threads spin during numpy's import and callgrind counts every
    thread, which moved the import's count 0.8-1.9% at load 9 here; with one
    thread it was 0.0%: docs/noise.md, Instructions), and the case says so."""
    res = jitbench("run", "--cases", "matmul_16_f32", "--backends", "numpy", "--cold-runs", "1", "--warm-iters", "2",
                   "--count", "instructions:valgrind", "--jobs", "2", env={"OPENBLAS_NUM_THREADS": "2"}, timeout=900)
    assert res.rc == 0, res.stderr
    case = res.case("numpy_matmul_16_f32")
    validate(case, "jitbench.case.v7")
    assert case["status"] == "ok", case["detail"]
    setup = case["counts"]["setup"]
    assert (setup["source"], setup["tool"]) == ("valgrind", "callgrind") and setup["version"].startswith("valgrind-")
    assert "--tool=callgrind" in setup["options"] and setup["jobs"] == 2
    assert setup["timeout_s"] == 300 * 50  # the timed runs' timeout times valgrind's slowdown
    threads = setup["controls"]["threads"]  # what the counting processes ran with, not the timed runs' 2
    assert "OMP_NUM_THREADS=1, OPENBLAS_NUM_THREADS=1, MKL_NUM_THREADS=1" in threads, threads
    assert setup["calls"] == 2  # as many warm calls as the timed runs make (--warm-iters 2), at most 10
    p = phases(case)
    assert p["import"]["n"] == 2 and p["import"]["median"] > 10e6
    for name in ("import", "setup", "first_call", "warm_call"):
        assert p[name]["spread_pct"] < 1, (name, p[name])
    runs = case["counts"]["runs"]
    assert all(r["counts"]["scope"].startswith("every thread") for r in runs)
    # callgrind's dumps were read and removed: nothing of them is left in the out dir or the index.
    assert not list(res.out.rglob("callgrind.out.*"))


@pytest.mark.heavy("uv environments")
def test_bisect_on_counts_finds_the_release_that_counts_more_and_clears_a_pair_that_does_not(
        jitbench, fake_env, tmp_path_factory):
    """Fake releases whose times are 40% apart from process to process (a busy
    machine) with 2 timed processes a side (too few for time to decide): on
    counts, 1.0 -> 1.1 is no regression and 1.0 -> 1.3 names 1.2, whose count
    is 30% higher."""
    from test_environments import link_numpy_wheels, wheel
    wheels = tmp_path_factory.mktemp("count-release-wheels")
    for v, f in {"1.0": 1, "1.1": 1, "1.2": 1.3, "1.3": 1.3}.items():
        wheel(wheels, "countrel", v, {"countrel/__init__.py": f"COUNT_SCALE = {f}\n"})
    link_numpy_wheels(wheels)
    env = {**fake_env(), **NOISY, **FAKE_PMU, "FAKE_WORKER_RELEASE": "countrel",
           "JITBENCH_ENV_CACHE": str(tmp_path_factory.mktemp("count-env-cache"))}

    def bisect(good, bad, out):
        return jitbench("bisect", "--package", "countrel", "--good", good, "--bad", bad, "--metric",
                        "instructions_import", "--threshold", "10", "--cases", "matmul_8_f32", "--backends", "numpy",
                        "--cold-runs", "2", "--warm-iters", "2", "--find-links", str(wheels), "--no-index",
                        "--out-dir", str(out), env=env, out=False, timeout=1200)

    base = tmp_path_factory.mktemp("bisect-counts")
    same = bisect("1.0", "1.1", base / "same")
    assert same.rc == 0, same.stderr
    doc = json.loads((base / "same" / "bisect.json").read_text())
    validate(doc, "jitbench.bisect.v5")
    assert doc["result"]["status"] == "no_regression", doc["result"]
    (ev,) = doc["result"]["evidence"]
    assert (ev["unit"], ev["rule"], ev["p"]) == ("instructions", "spread", None)
    assert "over its counting processes' spread, less than 10% more instructions" in same.stdout
    found = bisect("1.0", "1.3", base / "found")
    assert found.rc == 0, found.stderr
    doc = json.loads((base / "found" / "bisect.json").read_text())
    assert (doc["result"]["status"], doc["result"]["first_bad"]) == ("found", "1.2"), doc["result"]
    assert "countrel 1.2 is the first release with the regression of instructions_import" in found.stdout


@pytest.mark.heavy("uv environments")
def test_the_releases_table_shows_each_environments_count_against_the_one_above(jitbench, fake_env,
                                                                                 tmp_path_factory):
    """A run across countrel 1.0, 1.1 and 1.3 (the last counting 30% more at
    import) with --count: summary.md's Releases table has an instruction
    column whose cells hold the step's ratio with its spread interval, bold
    with "more instructions" where the count moved, plain "within spread"
    where it did not, while the times (40% apart from process to process)
    decide nothing."""
    from test_environments import link_numpy_wheels, wheel
    wheels = tmp_path_factory.mktemp("count-table-wheels")
    for v, f in {"1.0": 1, "1.1": 1, "1.3": 1.3}.items():
        wheel(wheels, "countrel", v, {"countrel/__init__.py": f"COUNT_SCALE = {f}\n"})
    link_numpy_wheels(wheels)
    # Counts without jitter: an A/A step of 2 processes a side is called a change ~5% of the time by design.
    env = {**fake_env(), **NOISY, **FAKE_PMU, "FAKE_WORKER_RELEASE": "countrel", "FAKE_WORKER_COUNT_JITTER": "0",
           "JITBENCH_ENV_CACHE": str(tmp_path_factory.mktemp("count-table-env-cache"))}
    res = jitbench("run", *CASE, "--count", "instructions", "--env", "r10:countrel==1.0", "--env",
                   "r11:countrel==1.1", "--env", "r13:countrel==1.3", "--find-links", str(wheels), "--no-index",
                   env=env, timeout=1200)
    assert res.rc == 0, res.stderr
    table = (res.out / "summary.md").read_text().split("## Releases")[1].split("\n## ")[0]
    header = next(line for line in table.splitlines() if line.startswith("| Environment"))
    assert "| Instructions: import |" in header, header
    col = [c.strip() for c in header.split("|")].index("Instructions: import")
    rows = {r.split("|")[1].strip(): [c.strip() for c in r.split("|")] for r in table.splitlines()
            if r.startswith("| `r1")}
    assert set(rows) == {"`r10`", "`r11`", "`r13`"}, table
    assert re.fullmatch(r"\d+(\.\d+)? [MG]", rows["`r10`"][col]), rows["`r10`"][col]  # the first: no step
    same, more = rows["`r11`"][col], rows["`r13`"][col]
    assert "**" not in same and "(1.0000× [1.0000–1.0000])" in same, same
    m = re.search(r"\(\*\*(1\.\d{4})× \[([\d.]+)–([\d.]+)\], more instructions\*\*\)", more)
    assert m and (m[1], m[2], m[3]) == ("1.3000", "1.3000", "1.3000"), more


def test_the_report_shows_the_instructions_as_summary_md_does(jitbench, fake_env):
    """report.md and report.html render one Instructions section: the same lists in both."""
    res = counted(jitbench, fake_env())
    assert res.rc == 0, res.stderr
    rep = jitbench("report", str(res.out))
    assert rep.rc == 0, rep.stderr
    md = (res.out / "report" / "report.md").read_text().split("## Instructions")[1]
    page = (res.out / "report" / "report.html").read_text().split("<section id='counts'>")[1].split("</section>")[0]
    for said in ("The first call, divided or not:", "`numpy_matmul_8_f32`: "):
        assert said in md, said
    assert "The first call, divided or not:" in page and "<code>numpy_matmul_8_f32</code>: " in page
