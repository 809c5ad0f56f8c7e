"""Interleaving and the noise floor (docs/noise.md), with the fake worker and
a drift the test controls: FAKE_WORKER_DRIFT=FILE:N doubles every cold
process's times from the (N+1)-th cold process on, as a machine that got busy
halfway through would. Run one side after the other, the drift lands on one
side alone and makes a false difference; interleaved, it lands on both."""

import json
import os
import signal
import statistics
import subprocess
import time

import pytest

from conftest import JITBENCH, validate

pytestmark = pytest.mark.quick

CASE = ["--backends", "numpy", "--cases", "matmul_16_f32", "--cold-runs", "6", "--warm-iters", "2"]
ID = "numpy_matmul_16_f32"
# The gate judging rows as measured: what these tests make slower is the runs' environment (FAKE_WORKER_SCALE),
# which re-measuring (the gate's default where a side was not quiet) would not repeat.
GATE = ("--no-remeasure", "--fail-on-regression")


def noise(jitbench, fake_env, tmp_path, *extra, name="noise"):
    d = tmp_path / name
    env = fake_env()
    env["FAKE_WORKER_DRIFT"] = f"{tmp_path / (name + '.count')}:6"  # halfway through 2 x 6 cold processes
    res = jitbench("noise", *CASE, "--out-dir", str(d), *extra, env=env)
    assert res.rc == 0, res.stderr
    return d, json.loads((d / "noise.json").read_text())


def ttfr(d, side):
    case = json.loads((d / side / "cases" / f"{ID}.json").read_text())
    return [r["ttfr_s"] for r in case["cold"]["runs"]]


def metric(doc, name):
    return next(m for m in doc["metrics"] if m["case"] == ID and m["metric"] == name)


def test_a_drift_halfway_makes_a_false_difference_one_side_after_the_other(jitbench, fake_env, tmp_path):
    d, doc = noise(jitbench, fake_env, tmp_path, "--no-interleave")
    a, b = ttfr(d, "a"), ttfr(d, "b")
    assert statistics.median(b) == 2 * statistics.median(a)  # the same code, "twice as slow"
    m = metric(doc, "cold_ttfr_s")
    assert m["ratio"] == 2 and m["p"] < 0.05
    assert "interleaved" not in json.loads((d / "a" / "index.json").read_text())


def test_interleaved_sides_share_the_drift_and_have_equal_medians(jitbench, fake_env, tmp_path):
    d, doc = noise(jitbench, fake_env, tmp_path)
    a, b = ttfr(d, "a"), ttfr(d, "b")
    assert statistics.median(a) == statistics.median(b)
    assert sorted(a) == sorted(b)  # three before the drift and three after, on each side
    m = metric(doc, "cold_ttfr_s")
    assert m["ratio"] == 1 and m["p"] > 0.05
    validate(doc, "jitbench.noise.v1")
    for side in ("a", "b"):
        index = json.loads((d / side / "index.json").read_text())
        validate(index, "jitbench.index.v5")
        (group,) = index["interleaved"]
        assert group["cases"] == [ID, ID] and group["runs"] == ["../a", "../b"]
        # A1 B1 A2 B2 ...: the order the cold processes ran in
        assert [(s["case"], s["cold"]) for s in group["order"]] == [(k % 2, k // 2) for k in range(12)]


def test_the_noise_floor_is_the_smallest_slowdown_the_gate_confirms(jitbench, fake_env, tmp_path):
    d, doc = noise(jitbench, fake_env, tmp_path)
    m = metric(doc, "cold_ttfr_s")
    # Half of each side is twice the other half: a slowdown the gate confirms must move
    # NEW's samples past most of BASE's, so the floor is large (~100%), never 0.
    assert m["testable"] and m["detectable_pct"] is not None and 50 < m["detectable_pct"] <= 400
    for r in doc["metrics"]:
        assert r["n_a"] >= 1 and r["n_b"] >= 1


def run_pair(jitbench, fake_env, tmp_path, scale):
    out = []
    for k, s in enumerate(("1", scale)):
        env = fake_env()
        env["FAKE_WORKER_SCALE"] = s
        d = tmp_path / f"run{k}"
        res = jitbench("run", *CASE, "--out-dir", str(d), env=env)
        assert res.rc == 0, res.stderr
        out.append(d)
    return out


def test_compare_prints_the_floor_and_warns_below_it_refusing_only_with_strict(jitbench, fake_env, tmp_path):
    d, doc = noise(jitbench, fake_env, tmp_path)
    floor = metric(doc, "cold_ttfr_s")["detectable_pct"]
    base, new = run_pair(jitbench, fake_env, tmp_path, "1.5")
    res = jitbench("compare", str(base), str(new), *GATE, "10", "--noise-floor", str(d))
    assert res.rc == 1, res.stderr  # the gate keeps its exit code: a 50% slowdown of identical samples is confirmed
    assert f"(noise floor {floor:.1f}%)" in res.stdout
    assert "warning: --fail-on-regression 10% is below numpy_matmul_16_f32 cold_ttfr_s's noise floor" in res.stderr
    strict = jitbench("compare", str(base), str(new), *GATE, "10", "--noise-floor", str(d),
                      "--strict")
    assert strict.rc == 11, strict.stderr
    assert "error: --fail-on-regression 10%" in strict.stderr
    above = jitbench("compare", str(base), str(new), *GATE, f"{floor + 1:g}", "--noise-floor",
                     str(d), "--strict")
    assert "cold_ttfr_s's noise floor" not in above.stderr
    # One warm process a side: the A/A could not be tested, so no floor was measured for warm calls:
    # said beside the row, never refused (docs/noise.md).
    assert "warm_call_s" in above.stdout and "(noise floor: not measured, too few runs in the noise run)" in above.stdout
    assert "warm_call_s's noise floor" not in above.stderr
    highest = max(m["detectable_pct"] for m in doc["metrics"] if m["testable"] and m["detectable_pct"] is not None)
    held = jitbench("compare", str(base), str(new), *GATE, f"{highest + 1:g}", "--noise-floor",
                    str(d), "--strict")
    assert held.rc in (0, 1) and "noise floor (" not in held.stderr, held.stderr  # the gate decides, not --strict


def test_compare_and_bisect_hold_a_threshold_to_the_floor_by_one_rule(jitbench, fake_env, tmp_path):
    """A threshold a hair below the floor is below it for compare's warning, compare --strict and bisect alike;
    the floor itself is not (a slowdown of exactly the floor is one the gate confirms)."""
    d, doc = noise(jitbench, fake_env, tmp_path)
    for m in doc["metrics"]:
        if m["testable"]:
            m["detectable_pct"] = 10.05
    (d / "noise.json").write_text(json.dumps(doc))
    base, new = run_pair(jitbench, fake_env, tmp_path, "1.5")
    busy = tmp_path / "busy"  # bisect's out dir, not empty: past the floor check, bisect stops before measuring
    busy.mkdir()
    (busy / "x").write_text("")
    for pct, below in (("10", True), ("10.04", True), ("10.05", False), ("10.06", False)):
        warn = jitbench("compare", str(base), str(new), *GATE, pct, "--noise-floor", str(d))
        assert ("cold_ttfr_s's noise floor (10.1%)" in warn.stderr) == below, (pct, warn.stderr)
        strict = jitbench("compare", str(base), str(new), *GATE, pct, "--noise-floor", str(d),
                          "--strict")
        assert (strict.rc == 11) == below, (pct, strict.rc, strict.stderr)
        bis = jitbench("bisect", "--package", "slowimp", "--good", "1.0", "--bad", "1.3", "--versions",
                       "1.0,1.1,1.2,1.3", "--cases", "matmul_16_f32", "--backends", "numpy", "--out-dir", str(busy),
                       "--threshold", pct, "--noise-floor", str(d), "--strict", env=fake_env(), out=False)
        assert (bis.rc == 11) == below and ("-- above --threshold" in bis.stderr) == below, (pct, bis.stderr)
        if not below:
            assert bis.rc == 2 and "already holds files" in bis.stderr, bis.stderr


def test_bad_noise_floor_directories_are_one_line_errors_that_name_the_fix(jitbench, fake_env, tmp_path):
    base, new = run_pair(jitbench, fake_env, tmp_path, "1")
    empty = tmp_path / "empty"
    empty.mkdir()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "noise.json").write_text('{"schema_version": "jitbench.noise.v1"}')
    for d, says in ((tmp_path / "nowhere", "is not a directory"), (empty, "has no noise.json"),
                    (broken, "not a noise floor jitbench wrote")):
        res = jitbench("compare", str(base), str(new), "--noise-floor", str(d))
        assert res.rc == 2 and says in res.stderr and "jitbench noise" in res.stderr, res.stderr
        assert len(res.stderr.strip().splitlines()) == 1, res.stderr
    res = jitbench("compare", str(base), str(new), "--strict")
    assert res.rc == 2 and "give --noise-floor D too" in res.stderr
    full = tmp_path / "full"
    full.mkdir()
    (full / "x").write_text("")
    res = jitbench("noise", *CASE, "--out-dir", str(full), env=fake_env())
    assert res.rc == 2 and "is not empty" in res.stderr
    (tmp_path / "afile").write_text("")
    res = jitbench("noise", *CASE, "--out-dir", str(tmp_path / "afile"), env=fake_env())
    assert res.rc == 2 and "is a file: give a new or empty directory" in res.stderr
    res = jitbench("compare", str(base), str(new), "--remeasure", str(full))
    assert res.rc == 2 and "is not empty" in res.stderr
    res = jitbench("noise", *CASE, "--out-dir", str(tmp_path / "n"), "--env", "x:numpy", env=fake_env())
    assert res.rc == 2 and "leave out --shard, --env" in res.stderr


def test_a_noise_json_off_its_schema_is_refused_in_one_line(jitbench, fake_env, tmp_path):
    """Read back only after jitbench.noise.v1's schema accepts it: a file jitbench's reader would take field by
    field (another version, an alpha no test uses, a field it does not know) is refused, not half believed."""
    d, doc = noise(jitbench, fake_env, tmp_path)
    base, new = run_pair(jitbench, fake_env, tmp_path, "1")
    good = jitbench("compare", str(base), str(new), "--noise-floor", str(d))
    assert good.rc == 0, good.stderr
    for change, says in ((("schema_version", "jitbench.noise.v9"), "schema_version"), (("alpha", 7), "alpha"),
                         (("extra", 1), "extra")):
        bad = dict(doc)
        bad[change[0]] = change[1]
        (d / "noise.json").write_text(json.dumps(bad))
        res = jitbench("compare", str(base), str(new), "--noise-floor", str(d))
        assert res.rc == 2 and "not a noise floor jitbench wrote (not jitbench.noise.v1" in res.stderr, res.stderr
        assert says in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr


def test_compare_remeasure_measures_both_runs_again_side_by_side(jitbench, fake_env, tmp_path):
    """Two runs measured at different times compare the machine of each time as
    well; --remeasure measures their recorded commands again, interleaved, so
    that a drift during the re-measurement lands on both."""
    base, new = run_pair(jitbench, fake_env, tmp_path, "1")
    out = tmp_path / "again"
    env = fake_env()
    env["FAKE_WORKER_DRIFT"] = f"{tmp_path / 'again.count'}:6"
    res = jitbench("compare", str(base), str(new), "--remeasure", str(out), "--fail-on-regression", "10", env=env)
    assert res.rc == 0, res.stderr
    assert f"BASE {out / 'base'}" in res.stdout and f"NEW {out / 'new'}" in res.stdout
    a, b = ttfr(out, "base"), ttfr(out, "new")
    assert statistics.median(a) == statistics.median(b) and sorted(a) == sorted(b)
    for side in ("base", "new"):
        index = json.loads((out / side / "index.json").read_text())
        validate(index, "jitbench.index.v5")
        (group,) = index["interleaved"]
        assert group["runs"] == ["../base", "../new"]
        assert [(s["case"], s["cold"]) for s in group["order"]] == [(k % 2, k // 2) for k in range(12)]
    again = jitbench("compare", str(base), str(new), "--remeasure", str(out), env=env)
    assert again.rc == 2 and "is not empty" in again.stderr


def test_bisect_strict_refuses_a_threshold_below_the_floor_before_measuring(jitbench, fake_env, tmp_path):
    d, doc = noise(jitbench, fake_env, tmp_path)
    out = tmp_path / "bisect"
    res = jitbench("bisect", "--package", "slowimp", "--good", "1.0", "--bad", "1.3", "--versions",
                   "1.0,1.1,1.2,1.3", "--cases", "matmul_16_f32", "--backends", "numpy", "--out-dir", str(out),
                   "--threshold", "10", "--noise-floor", str(d), "--strict", env=fake_env())
    assert res.rc == 11, res.stderr
    assert "numpy_matmul_16_f32's noise floor for ttfr: 100.0% -- above --threshold 10%" in res.stderr
    assert not out.exists()  # nothing was measured, no out dir made
    res = jitbench("bisect", "--package", "slowimp", "--good", "1.0", "--bad", "1.3", "--out-dir", str(out),
                   "--strict", env=fake_env())
    assert res.rc == 2 and "give --noise-floor D too" in res.stderr


def interrupt_when_measuring(argv, env, logs):
    """Starts jitbench, sends SIGINT once a worker of `logs` (a case's log dir) has started, returns the result."""
    proc = subprocess.Popen(argv, env=dict(os.environ, **env), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.time() + 60
    while not logs.is_dir() and time.time() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err


def test_an_interrupted_noise_exits_as_an_interrupted_run_and_says_it_cannot_be_resumed(fake_env, tmp_path):
    d = tmp_path / "noise"
    env = dict(fake_env(numpy="slow"), FAKE_WORKER_SLEEP="30")
    rc, out, err = interrupt_when_measuring([str(JITBENCH), "noise", *CASE, "--out-dir", str(d)], env,
                                            d / "a" / "logs" / ID)
    assert rc == 128 + signal.SIGINT, err  # README: 128+N, as `run` exits
    assert "cannot be resumed" in err and "`jitbench noise` again into a new directory" in err, err
    assert not (d / "noise.json").exists()
    # What it says holds: the sides are not resumable runs.
    res = subprocess.run([str(JITBENCH), "run", "--resume", str(d / "a")], capture_output=True, text=True)
    assert res.returncode == 2, res.stderr


def test_an_interrupted_remeasure_exits_as_an_interrupted_run_and_compares_nothing(jitbench, fake_env, tmp_path):
    base, new = run_pair(jitbench, fake_env, tmp_path, "1")
    d = tmp_path / "again"
    env = dict(fake_env(numpy="slow"), FAKE_WORKER_SLEEP="30")
    rc, out, err = interrupt_when_measuring([str(JITBENCH), "compare", str(base), str(new), "--remeasure", str(d)],
                                            env, d / "base" / "logs" / ID)
    assert rc == 128 + signal.SIGINT, err
    assert "--remeasure interrupted; nothing was compared" in err and "cannot be resumed" in err, err
    assert "ratio [95% CI]" not in out
