"""Every second from spawn to exit is in exactly one named bucket: the
interpreter's start-up, the harness's own import, the measured import_s ..
total_s, the harness's observation, verification and report, and its exit.
The buckets tile the wall time jitbench measured; a worker whose buckets leave
a gap or overlap fails inconsistent_timings."""

import pytest

from conftest import validate

pytestmark = pytest.mark.quick

BUCKETS = ("interpreter_start_s", "harness_import_s", "harness_observe_s", "harness_verify_s", "harness_report_s",
           "harness_exit_s")
# docs/protocol.md: the worker's buckets must cover first line -> result within
# 100 us or 0.5% (the slack of every timing check); the sum to the wall time then
# holds within that plus the clocks' rounding.
SLACK_S, SLACK_FRACTION = 100e-6, 0.005


def assert_tiles(run):
    b = run["buckets"]
    assert all(b[k] >= 0 for k in BUCKETS), b
    total = sum(b[k] for k in BUCKETS) + run["total_s"]
    assert total == pytest.approx(run["wall_s"], abs=max(SLACK_S, SLACK_FRACTION * run["wall_s"])), (b, run["wall_s"])
    assert abs(b["unattributed_s"]) <= max(SLACK_S, SLACK_FRACTION * b["worker_span_s"]), b
    # The hello is sent after the worker's first line: process_start_s holds the
    # interpreter's start-up and part of the harness's import.
    assert b["interpreter_start_s"] <= run["process_start_s"]
    assert run["process_ttfr_s"] == pytest.approx(b["interpreter_start_s"] + run["ttfr_s"])
    # harness_gap_s is the rest of the wall time by the same split: the harness's own buckets.
    harness = sum(b[k] for k in BUCKETS if k != "interpreter_start_s") + b["unattributed_s"]
    assert run["harness_gap_s"] == pytest.approx(harness, abs=1e-9), (run["harness_gap_s"], b)
    assert run["harness_gap_s"] == pytest.approx(run["wall_s"] - b["interpreter_start_s"] - run["total_s"], abs=1e-9)


def test_the_real_workers_buckets_tile_its_wall_time(jitbench):
    res = jitbench("run", "--backends", "numpy", "--cases", "matmul_64_f32", "--cold-runs", "2", "--warm-iters", "3")
    assert res.rc == 0, res.stderr
    case = res.case("numpy_matmul_64_f32")
    validate(case, "jitbench.case.v6")
    for run in case["cold"]["runs"] + case["warm"]["runs"]:
        assert run["status"] == "ok", run
        assert_tiles(run)
        assert run["buckets"]["harness_verify_s"] > 0  # the float64 check is the harness's, not the call's


def test_an_honest_fake_workers_buckets_tile_its_wall_time(jitbench, fake_env):
    res = jitbench("run", "--backends", "numpy", "--cases", "matmul_64_f32", "--cold-runs", "1", "--warm-iters", "2",
                   env=fake_env(numpy="harness"))
    assert res.rc == 0, res.stderr
    run = res.case("numpy_matmul_64_f32")["cold"]["runs"][0]
    assert run["status"] == "ok", run
    assert_tiles(run)
    assert run["buckets"]["harness_import_s"] >= 0.05


def test_a_worker_that_hides_its_harness_import_fails_the_reconciliation(jitbench, fake_env):
    res = jitbench("run", "--backends", "numpy", "--cases", "matmul_64_f32", "--cold-runs", "1", "--warm-iters", "2",
                   env=fake_env(numpy="lie_harness"))
    run = res.case("numpy_matmul_64_f32")["cold"]["runs"][0]
    assert (run["status"], run["reason"]) == ("failed", "inconsistent_timings"), run
    assert "a gap no bucket holds" in run["detail"], run["detail"]


def test_a_worker_that_reports_one_buckets_time_in_another_fails(jitbench, fake_env):
    """The sum still fits (nothing left out, nothing counted twice): only the marks between the buckets show that
    the harness's import was reported as verification."""
    res = jitbench("run", "--backends", "numpy", "--cases", "matmul_64_f32", "--cold-runs", "1", "--warm-iters", "2",
                   env=fake_env(numpy="swallow_harness"))
    run = res.case("numpy_matmul_64_f32")["cold"]["runs"][0]
    assert (run["status"], run["reason"]) == ("failed", "inconsistent_timings"), run
    assert "harness_import_s is 0 s, but the worker's own marks around it are" in run["detail"], run["detail"]
    assert abs(run["buckets"]["unattributed_s"]) < 1e-3  # what the sum alone saw: nothing wrong
