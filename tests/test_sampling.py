"""--target-ci: processes are added per case until the median's interval is
tight, with a fake worker of known spread (FAKE_WORKER_JITTER, lognormal sigma).
The stopping rule is re-implemented here from its definition, apart from
jitbench's C++ (src/stats/sequential.cc) and the worker's Python, and every
recorded stop is checked against it: where it stopped, why, and the interval
it reports."""

import json
import math
import os
import signal
import statistics
import subprocess
import time

import pytest

from conftest import JITBENCH, validate

pytestmark = pytest.mark.quick

ONE_CASE = ["--cases", "matmul_8_f32", "--backends", "numpy"]


def rank(n, confidence):
    """Largest k with P(Binomial(n, 1/2) <= k - 1) <= (1 - confidence) / 2 (0: none)."""
    k, below = 0, 0
    while k < n // 2:
        below += math.comb(n, k)
        if below / 2 ** n > (1 - confidence) / 2:
            break
        k += 1
    return k


def half_width(xs, confidence):
    k = rank(len(xs), confidence)
    if k == 0:
        return None
    v, med = sorted(xs), statistics.median(xs)
    return max(med - v[k - 1], v[len(v) - k] - med) / med * 100


def first_tight(xs, target, min_runs):
    """The first n at which the rule (99% interval within target) stops; None if never."""
    for n in range(min_runs, len(xs) + 1):
        w = half_width(xs[:n], 0.99)
        if w is not None and w <= target:
            return n
    return None


def ttfrs(case):
    return [r["ttfr_s"] for r in case["cold"]["runs"] if r["status"] == "ok"]


def jitter_env(fake_env, sigma, **modes):
    env = fake_env(**modes)
    env["FAKE_WORKER_JITTER"] = str(sigma)
    return env


def test_a_quiet_worker_stops_at_the_target(jitbench, fake_env):
    # sigma 1%: eight runs span about +-3%, inside +-5% (no 99% interval exists before 8).
    res = jitbench("run", *ONE_CASE, "--target-ci", "5", "--warm-iters", "40", env=jitter_env(fake_env, 0.01))
    assert res.rc == 0, res.stderr
    assert "until the 95% interval of each median is within +-5%" in res.stderr
    case = res.case("numpy_matmul_8_f32")
    validate(case, "jitbench.case.v6")
    s = case["sampling"]
    assert s["rule"] == "target_ci" and s["target_ci_pct"] == 5 and (s["min_runs"], s["max_runs"]) == (5, 30)
    xs = ttfrs(case)
    assert s["cold"]["stopped"] == "target_reached"
    assert len(xs) == first_tight(xs, 5, 5) == s["cold"]["samples"]  # the first look that was tight, no later
    assert s["cold"]["half_width_pct"] == pytest.approx(half_width(xs, 0.95))
    assert s["cold"]["half_width_pct"] <= 5
    v = sorted(xs)
    k = rank(len(xs), 0.95)
    assert (s["cold"]["interval"]["low"], s["cold"]["interval"]["high"]) == (v[k - 1], v[len(v) - k])
    # Warm: processes by their medians, calls by the same rule inside each process.
    medians = case["warm"]["process_medians_s"]
    assert s["warm"]["stopped"] == "target_reached" and len(medians) == first_tight(medians, 5, 5)
    assert s["warm_calls"] == {"min": 10, "max": 40}
    for run in case["warm"]["runs"]:
        calls = run["calls_s"]
        assert 10 <= len(calls) <= 40
        if len(calls) < 40:
            assert first_tight(calls, 5, 10) == len(calls)
    # Sampling is in the summary, the compare gate takes every sample.
    summary = (res.out / "summary.md").read_text()
    assert "## Sampling" in summary and "±5%, 5–30 runs" in summary and "target_reached" in summary
    assert jitbench("validate", str(res.out)).rc == 0


def test_a_noisy_worker_stops_at_max_runs_with_the_wider_interval(jitbench, fake_env):
    res = jitbench("run", *ONE_CASE, "--target-ci", "2", "--max-runs", "9", "--warm-iters", "12",
                   env=jitter_env(fake_env, 0.3))
    assert res.rc == 0, res.stderr
    case = res.case("numpy_matmul_8_f32")
    s = case["sampling"]
    xs = ttfrs(case)
    assert s["cold"]["stopped"] == "max_runs" and len(xs) == 9
    assert first_tight(xs, 2, 5) is None  # never tight enough before the bound
    assert s["cold"]["half_width_pct"] > 2  # the interval it got, not the one it wanted
    assert case["config"]["cold_runs"] == 9  # the most the rule was allowed
    validate(case, "jitbench.case.v6")


def test_max_time_stops_a_slow_case(jitbench, fake_env):
    env = jitter_env(fake_env, 0.3, numpy="slow")
    env["FAKE_WORKER_SLEEP"] = "0.3"
    res = jitbench("run", *ONE_CASE, "--target-ci", "1", "--max-time", "2", "--warm-iters", "3", env=env)
    assert res.rc == 0, res.stderr
    s = res.case("numpy_matmul_8_f32")["sampling"]
    assert s["cold"]["stopped"] == "max_time" and s["max_time_s"] == 2
    assert 5 <= s["cold"]["samples"] < 30  # min_runs first, then the clock


def test_fixed_counts_stay_the_default_and_record_it(jitbench, fake_env):
    res = jitbench("run", *ONE_CASE, "--cold-runs", "2", "--warm-iters", "3", env=fake_env())
    assert res.rc == 0, res.stderr
    s = res.case("numpy_matmul_8_f32")["sampling"]
    assert s["rule"] == "fixed" and s["cold"]["stopped"] == "fixed_count" and s["cold"]["samples"] == 2
    assert s["cold"]["interval"] is None  # two runs give no 95% interval, and the file says so
    assert s["warm"]["stopped"] == "fixed_count"


def test_a_worker_that_ends_its_warm_calls_early_fails(jitbench, fake_env):
    # Warm calls cycling 1.0/1.1/0.9 ms are never within +-5%: stopping at the least asked is a lie.
    res = jitbench("run", *ONE_CASE, "--target-ci", "5", "--max-runs", "8", "--warm-iters", "30",
                   env=fake_env(numpy="early_stop"))
    case = res.case("numpy_matmul_8_f32")
    assert case["status"] == "failed", case["detail"]
    assert case["reason"].startswith(
        "protocol_violation: the warm calls stopped at 10 of 30 before their 99% interval was within +-5%")
    assert case["sampling"]["warm"]["stopped"] == "run_not_ok"


def test_resume_keeps_the_rule(jitbench, fake_env, tmp_path):
    out = tmp_path / "stopped"
    env = dict(jitter_env(fake_env, 0.01, numba="slow"), FAKE_WORKER_SLEEP="30")
    p = subprocess.Popen([str(JITBENCH), "run", "--cases", "matmul_8_f32", "--backends", "numpy,numba", "--target-ci",
                          "5", "--warm-iters", "12", "--out-dir", str(out)], env=dict(os.environ, **env),
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while not (out / "logs" / "numba_matmul_8_f32" / "cold-0.log").exists() and time.time() < deadline:
        time.sleep(0.05)
    p.send_signal(signal.SIGTERM)
    p.communicate(timeout=60)
    again = jitbench("run", "--resume", str(out), env=jitter_env(fake_env, 0.01), out=False)
    assert again.rc == 0, again.stderr
    for case in ("numpy_matmul_8_f32", "numba_matmul_8_f32"):
        s = json.loads((out / "cases" / f"{case}.json").read_text())["sampling"]
        assert s["rule"] == "target_ci" and s["cold"]["stopped"] == "target_reached"


@pytest.mark.parametrize(
    "args,message",
    [
        (["--target-ci", "5", "--cold-runs", "3"], "--target-ci picks the number of runs"),
        (["--target-ci", "5", "--deterministic"], "--deterministic keeps fixed counts"),
        (["--min-runs", "6"], "bound --target-ci: add --target-ci PCT"),
        (["--target-ci", "5", "--min-runs", "3"], "--min-runs"),
        (["--target-ci", "5", "--min-runs", "9", "--max-runs", "6"], "--max-runs 6 is below --min-runs 9"),
        (["--target-ci", "0"], "--target-ci"),
        (["--target-ci", "5", "--max-time", "-1"], "--max-time"),
    ],
)
def test_bad_sampling_options_are_one_line_errors(jitbench, args, message):
    res = jitbench("run", *ONE_CASE, *args)
    assert res.rc == 2
    assert message in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr
