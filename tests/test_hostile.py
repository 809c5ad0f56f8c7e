"""Hostile input and failing machines (issue 26): no crash, no hang, no write
outside the out dir, no result lost or taken from the wrong file. Each test
names the numbered defect it catches; docs/reliability.md lists them all."""

import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time

import pytest
from forge import rehash

from conftest import JITBENCH, ROOT, validate

pytestmark = pytest.mark.quick

CASES = ["--cases", "matmul_8_f32", "--cold-runs", "1", "--warm-iters", "2"]


def sh(*args, env=None, cwd=None, timeout=60):
    """The real binary, with a deadline: a hang is a failure, never a stuck test."""
    return subprocess.run([str(JITBENCH), *args], capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          env=dict(os.environ, **(env or {})), stdin=subprocess.DEVNULL)


def crashed(proc):
    return proc.returncode < 0 or proc.returncode == 3 or "internal error" in proc.stderr


@pytest.fixture
def small_run(jitbench, fake_env):
    res = jitbench("run", *CASES, "--backends", "numpy,numba", env=fake_env())
    assert res.rc == 0, res.stderr
    return res.out


# 1. A worker line nested 70,000 deep: a named failure, not a SIGSEGV; the out dir stays valid.
def test_a_deeply_nested_worker_line_is_a_named_failure(jitbench, fake_env):
    res = jitbench("run", *CASES, "--backends", "numpy,numba", env=fake_env(numpy="deep"))
    assert res.rc == 2 and "internal error" not in res.stderr, res.stderr
    case = res.case("numpy_matmul_8_f32")
    assert (case["status"], case["reason"]) == ("failed", "worker_failed")
    assert "nested deeper than 256 levels" in case["detail"]
    assert res.case("numba_matmul_8_f32")["status"] == "ok"
    assert sh("validate", str(res.out)).returncode == 0


# 1. A case file nested a million deep is refused by validate, and read by nothing else.
def test_a_deeply_nested_case_file_is_refused_everywhere(small_run, tmp_path):
    rel = "cases/numpy_matmul_8_f32.json"
    (small_run / rel).write_text("[" * 1_000_000 + "]" * 1_000_000)
    rehash(small_run, rel)
    v = sh("validate", str(small_run))
    assert v.returncode == 1 and "nested deeper than 256 levels" in v.stderr, v.stderr
    for args in (["report", str(small_run)], ["compare", str(small_run), str(small_run)],
                 ["merge", str(tmp_path / "m"), str(small_run)],
                 ["plan", "--cases", "matmul_8_f32", "--backends", "numpy", "--shard", "1/2", "--costs", str(small_run)]):
        p = sh(*args)
        assert not crashed(p) and p.returncode == 2, (args, p.returncode, p.stderr)
        assert "nested deeper than 256 levels" in p.stderr, (args, p.stderr)


# 2. A suite key of 60,000 dotted parts: one line, exit 2, no SIGSEGV.
def test_a_suite_key_of_sixty_thousand_parts_is_refused(tmp_path):
    suite = tmp_path / "deep.toml"
    suite.write_text("a" + ".b" * 60000 + " = 1\n[[matrix]]\nbackends = [\"numpy\"]\nworkloads = [\"matmul\"]\n"
                     "sizes = [8]\ndtypes = [\"f32\"]\n")
    p = sh("plan", "--suite", str(suite))
    assert p.returncode == 2 and not crashed(p), p.stderr
    assert "a key of 256 or more dotted parts" in p.stderr and len(p.stderr.strip().splitlines()) == 1


# 3. An out dir whose name is not UTF-8: refused in one line before anything is written.
def test_an_out_dir_that_is_not_utf8_is_refused_before_anything_is_written(fake_env, tmp_path):
    bad = os.fsencode(tmp_path) + b"/utf\xff\xfebad"
    p = subprocess.run([os.fsencode(JITBENCH), b"run", *[a.encode() for a in CASES], b"--backends", b"numpy",
                        b"--out-dir", bad], capture_output=True, env=dict(os.environ, **fake_env()), timeout=60)
    assert p.returncode == 2, p.stderr
    err = p.stderr.decode()
    assert "is not valid UTF-8" in err and len(err.strip().splitlines()) == 1 and "internal error" not in err
    assert not os.path.exists(bad)


# 4. A hard link planted in the out dir is replaced, never written through.
def test_a_hard_link_in_the_out_dir_never_reaches_the_file_outside(small_run, tmp_path):
    outside = tmp_path / "precious.txt"
    outside.write_text("precious")
    (small_run / "report").mkdir()
    os.link(outside, small_run / "report" / "report.log")
    sh("report", str(small_run), timeout=300)
    assert outside.read_text() == "precious"


def test_a_hard_linked_worker_log_is_replaced_on_resume(fake_env, tmp_path):
    out = tmp_path / "stopped"
    env = dict(fake_env(numba="slow"), FAKE_WORKER_SLEEP="30")
    p = subprocess.Popen([str(JITBENCH), "run", *CASES, "--backends", "numpy,numba,jax_jit_cpu", "--out-dir",
                          str(out)], env=dict(os.environ, **env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while not (out / "logs" / "numba_matmul_8_f32" / "cold-0.log").exists() and time.time() < deadline:
        time.sleep(0.05)
    p.send_signal(signal.SIGTERM)
    p.communicate(timeout=60)
    # The case resume measures next: its log, planted as a hard link to a file outside.
    log_dir = out / "logs" / "jax_jit_cpu_matmul_8_f32"
    log_dir.mkdir(parents=True)
    outside = tmp_path / "precious.txt"
    outside.write_text("precious")
    os.link(outside, log_dir / "cold-0.log")
    r = sh("run", "--resume", str(out), env=fake_env())
    assert r.returncode == 0, r.stderr
    assert outside.read_text() == "precious"
    assert "may print to stdout freely" in (log_dir / "cold-0.log").read_text()


# 5. index.json a FIFO or a link to /dev/zero: every reader answers at once.
@pytest.mark.parametrize("kind", ["fifo", "devzero"])
def test_an_index_that_is_no_regular_file_never_hangs_a_reader(small_run, tmp_path, kind):
    (small_run / "index.json").unlink()
    if kind == "fifo":
        os.mkfifo(small_run / "index.json")
    else:
        os.symlink("/dev/zero", small_run / "index.json")
    for args in (["validate", str(small_run)], ["report", str(small_run)],
                 ["compare", str(small_run), str(small_run)], ["merge", str(tmp_path / "m"), str(small_run)],
                 ["run", "--resume", str(small_run)],
                 ["plan", "--cases", "matmul_8_f32", "--backends", "numpy", "--shard", "1/2", "--costs",
                  str(small_run)]):
        p = sh(*args, timeout=30)  # a hang raises TimeoutExpired: the test fails
        assert p.returncode in (1, 2) and not crashed(p), (args, p.returncode, p.stderr)
        assert "index.json" in p.stderr, (args, p.stderr)


# 5. A large case file is validated in memory a small multiple of its size.
def test_validating_a_large_case_file_takes_a_small_multiple_of_its_size(jitbench, fake_env):
    res = jitbench("run", "--cases", "matmul_8_f32", "--cold-runs", "1", "--warm-iters", "5",
                   "--backends", "numpy", env=fake_env())
    assert res.rc == 0, res.stderr
    # A case file of a million warm calls and the index's hash of it: measuring a
    # million calls through the fake worker took minutes of this test's time for
    # the same file. The calls go where the schema allows them (warm.calls_s and
    # warm.run, which readers of case.v7 do not use), so that the file is that
    # size and schema-valid while warm.runs and the summaries it states still
    # agree: what is measured is validate's memory on a 27 MB document.
    path = res.out / "cases" / "numpy_matmul_8_f32.json"
    case = json.loads(path.read_text())
    calls = [round(0.001 + 1e-9 * (i % 997), 12) for i in range(1_000_000)]
    case["warm"]["calls_s"] = case["warm"]["run"]["calls_s"] = calls
    path.write_text(json.dumps(case, indent=2, sort_keys=True))
    rehash(res.out, "cases/numpy_matmul_8_f32.json")
    size = path.stat().st_size
    assert size > 20 << 20
    # wait4's ru_maxrss of a child of this pytest process would be at least this
    # process's own peak (the kernel folds the forked copy's peak into it at
    # exec): a small interpreter in between forks validate and reads its peak.
    probe = ("import os, subprocess, sys\n"
             "p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
             "_, status, usage = os.wait4(p.pid, 0)\n"
             "print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)\n")
    out = subprocess.run([sys.executable, "-S", "-c", probe, str(JITBENCH), "validate", str(res.out)],
                         capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "0"
    peak = int(out[1]) * 1024
    assert peak < 8 * size, f"validate peaked at {peak >> 20} MiB for a {size >> 20} MiB case file"


# 6. A suite of six million cases is refused with its size, before it takes the memory.
def test_a_plan_of_six_million_cases_is_refused(tmp_path):
    suite = tmp_path / "huge.toml"
    sizes = ", ".join(str(i) for i in range(1, 1001))
    workloads = ", ".join(['"matmul"'] * 1000)
    suite.write_text(f'[[matrix]]\nbackends = ["numpy", "numba", "python", "jax_jit_cpu", "jax_eager_cpu", '
                     f'"tensorflow"]\nworkloads = [{workloads}]\nsizes = [{sizes}]\ndtypes = ["f32"]\n')
    p = sh("plan", "--suite", str(suite), "--json", timeout=120)
    assert p.returncode == 2 and not crashed(p), p.stderr
    assert "expands to 6000000 cases, more than jitbench plans (1000000)" in p.stderr


# 7. A signal while jitbench starts (the probe): recorded, the dir valid and resumable.
def test_a_signal_while_starting_is_recorded(fake_env, tmp_path):
    out = tmp_path / "starting"
    env = dict(fake_env(), FAKE_WORKER_PROBE="slow", FAKE_WORKER_SLEEP="20")
    p = subprocess.Popen([str(JITBENCH), "run", *CASES, "--backends", "numpy", "--out-dir", str(out)],
                         env=dict(os.environ, **env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 30
    while not (out / "logs" / "probe.log").exists() and time.time() < deadline:
        time.sleep(0.05)
    index = json.loads((out / "index.json").read_text())  # there before the probe
    assert index["stopped"]["reason"] == "starting"
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=30)
    assert p.returncode == 128 + signal.SIGTERM and "interrupted while starting" in err
    index = json.loads((out / "index.json").read_text())
    assert index["stopped"]["reason"] == "interrupted" and index["cases"] == []
    validate(index, "jitbench.index.v5")
    assert sh("validate", str(out)).returncode == 6
    r = sh("run", "--resume", str(out), env=fake_env())
    assert r.returncode == 0, r.stderr
    assert sh("validate", str(out)).returncode == 0
    assert json.loads((out / "environment.json").read_text())["python"]["version"] == "3.fake"


def test_a_failed_probe_is_recorded(fake_env, tmp_path):
    out = tmp_path / "probe"
    r = sh("run", *CASES, "--backends", "numpy", "--out-dir", str(out), env=dict(fake_env(), FAKE_WORKER_PROBE="fail"))
    assert r.returncode == 2 and r.stderr.startswith("jitbench: error: ")
    index = json.loads((out / "index.json").read_text())
    assert index["stopped"]["reason"] == "probe_failed"
    assert sh("validate", str(out)).returncode == 6


def test_a_full_disk_before_the_first_index_leaves_the_dir_reusable(fake_env, small_fs):
    filler = small_fs / "filler"
    try:
        with open(filler, "wb") as f:
            while True:
                f.write(b"x" * 4096)
                f.flush()
    except OSError:
        pass  # the file system is full
    out = small_fs / "out"
    r = sh("run", *CASES, "--backends", "numpy", "--out-dir", str(out), env=fake_env())
    assert r.returncode == 4, r.stderr
    assert sorted(p.name for p in out.iterdir()) == [".jitbench.lock"]
    filler.unlink()
    again = sh("run", *CASES, "--backends", "numpy", "--out-dir", str(out), env=fake_env())
    assert again.returncode == 0, again.stderr


# 8. kill -9 of jitbench: its worker dies with it, and --resume's logs stay valid.
def test_a_worker_dies_with_a_killed_jitbench(fake_env, tmp_path):
    out = tmp_path / "killed"
    pidfile = tmp_path / "pids"
    env = dict(fake_env(numba="chatty"), FAKE_WORKER_SLEEP="20", FAKE_WORKER_PIDFILE=str(pidfile))
    p = subprocess.Popen([str(JITBENCH), "run", *CASES, "--backends", "numpy,numba", "--out-dir", str(out)],
                         env=dict(os.environ, **env), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while not pidfile.exists() and time.time() < deadline:
        time.sleep(0.05)
    worker = int(pidfile.read_text().split()[0])
    p.kill()
    p.wait(timeout=30)
    deadline = time.time() + 5
    while time.time() < deadline and os.path.exists(f"/proc/{worker}") and \
            open(f"/proc/{worker}/stat").read().rsplit(")", 1)[1].split()[0] != "Z":
        time.sleep(0.05)
    gone = not os.path.exists(f"/proc/{worker}") or \
        open(f"/proc/{worker}/stat").read().rsplit(")", 1)[1].split()[0] == "Z"
    assert gone, "the worker outlived jitbench's kill -9"
    r = sh("run", "--resume", str(out), env=fake_env(), timeout=120)
    assert r.returncode == 0, r.stderr
    time.sleep(1)
    assert sh("validate", str(out)).returncode == 0


# 9. --resume from another directory measures the files the run was started with.
def test_resume_from_elsewhere_uses_the_runs_own_inputs(fake_env, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    source = (ROOT / "examples" / "workloads" / "softmax_rows.py").read_text()
    (a / "softmax_rows.py").write_text(source)
    (b / "softmax_rows.py").write_text("raise SystemExit('the wrong file')\n")
    suite = a / "s.toml"
    suite.write_text('[suite]\nname = "mine"\ncold_runs = 1\nwarm_iters = 2\n'
                     '[[matrix]]\nbackends = ["numpy", "numba"]\nworkloads = ["softmax_rows"]\nsizes = [8]\n'
                     'dtypes = ["f32"]\n')
    env = dict(fake_env(numba="slow"), FAKE_WORKER_SLEEP="30")
    p = subprocess.Popen([str(JITBENCH), "run", "--suite", "s.toml", "--workload-path", "softmax_rows.py",
                          "--out-dir", str(tmp_path / "out")], cwd=a, env=dict(os.environ, **env),
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = tmp_path / "out"
    deadline = time.time() + 60
    while not (out / "logs" / "numba_softmax_rows_8_f32").exists() and time.time() < deadline:
        time.sleep(0.05)
    p.send_signal(signal.SIGTERM)
    p.communicate(timeout=60)
    index = json.loads((out / "index.json").read_text())
    assert index["cwd"] == str(a)
    assert {i["kind"] for i in index["inputs"]} == {"suite", "workload"}
    (a / "s.toml").unlink()  # the original is gone; the copy is what counts
    copy = out / "inputs" / "workloads" / "softmax_rows.py"
    copy.write_text("x = 1\n")  # a copy that was altered is refused
    bad = sh("run", "--resume", str(out), env=fake_env(), cwd=b)
    assert bad.returncode == 2 and "inputs/workloads/softmax_rows.py: sha256 differs" in bad.stderr, bad.stderr
    copy.write_text(source)
    r = sh("run", "--resume", str(out), env=fake_env(), cwd=b)
    assert r.returncode == 0, r.stderr
    case = json.loads((out / "cases" / "numba_softmax_rows_8_f32.json").read_text())
    assert case["workload"]["path"] == str(copy)


# 10. merge: no OUT inside a shard, no shards measured with different settings.
def test_merge_refuses_an_out_inside_a_shard_and_mixed_settings(fake_env, tmp_path):
    def shard(name, k, cold_runs):
        d = tmp_path / name
        r = sh("run", "--cases", "matmul_8_f32", "--backends", "numpy,numba", "--cold-runs", cold_runs, "--warm-iters",
               "2", "--shard", f"{k}/2", "--out-dir", str(d), env=fake_env())
        assert r.returncode == 0, r.stderr
        return d

    one, two, two_other = shard("shard-1", 1, "1"), shard("shard-2", 2, "1"), shard("shard-2b", 2, "2")
    inside = sh("merge", str(one / "merged"), str(one), str(two))
    assert inside.returncode == 2 and "is inside shard" in inside.stderr, inside.stderr
    assert not (one / "merged").exists() and sh("validate", str(one)).returncode == 0  # untouched
    mixed = sh("merge", str(tmp_path / "merged"), str(one), str(two_other))
    assert mixed.returncode == 2 and "measured with different settings" in mixed.stderr, mixed.stderr
    assert not (tmp_path / "merged").exists()
    assert sh("merge", str(tmp_path / "merged"), str(one), str(two)).returncode == 0


# 11. Numbers no measurement gives are refused where they come in, never written as null.
def test_calls_below_the_clock_tick_are_a_protocol_violation(jitbench, fake_env):
    res = jitbench("run", *CASES, "--backends", "numpy", env=fake_env(numpy="tiny_calls"))
    assert res.rc == 2
    assert res.case("numpy_matmul_8_f32")["reason"].startswith("protocol_violation: calls_s")
    assert sh("validate", str(res.out)).returncode == 0


def test_impossible_costs_are_refused(small_run):
    rel = "cases/numpy_matmul_8_f32.json"
    case = json.loads((small_run / rel).read_text())
    # The warm process's wall time: no summary restates it (a cold run's would be refused as an edit on read).
    run = case["warm"]["runs"][0]
    run["wall_s"] = 1e308
    run["harness_gap_s"] = 1e308  # restated from the wall time, as a careful forger would (1e308 less a few s)
    (small_run / rel).write_text(json.dumps(case))
    rehash(small_run, rel)
    p = sh("plan", "--cases", "matmul_8_f32", "--backends", "numpy,numba", "--shard", "1/2", "--costs", str(small_run),
           "--json")
    assert p.returncode == 2 and "not a time a run took" in p.stderr, p.stderr


# 12. compare's gate fails on a case NEW lost; validate says when a run is incomplete.
def test_the_gate_fails_on_a_lost_case_and_validate_on_an_incomplete_run(fake_env, tmp_path):
    base, new = tmp_path / "base", tmp_path / "new"
    assert sh("run", *CASES, "--backends", "numpy,numba", "--out-dir", str(base), env=fake_env()).returncode == 0
    assert sh("run", *CASES, "--backends", "numpy", "--out-dir", str(new), env=fake_env()).returncode == 0
    g = sh("compare", str(base), str(new), "--fail-on-regression", "50")
    assert g.returncode == 1 and "regression: case missing in NEW: numba_matmul_8_f32" in g.stderr, g.stderr
    assert sh("compare", str(base), str(base), "--fail-on-regression", "50").returncode == 0
    assert sh("validate", str(new)).returncode == 0  # complete: 0; a stopped run is 6 (test_a_failed_probe...)


# 13. An empty --resume or --shard is refused, never taken as absent.
@pytest.mark.parametrize("flag", ["--resume", "--shard", "--out-dir", "--suite"])
def test_an_empty_value_is_refused(flag):
    p = sh("run", flag, "")
    assert p.returncode == 2 and "must not be empty" in p.stderr, p.stderr


def test_a_plan_that_cannot_be_written_is_an_error():
    with open("/dev/full", "w") as full:
        p = subprocess.run([str(JITBENCH), "plan", "--json"], stdout=full, stderr=subprocess.PIPE, text=True,
                           timeout=60)
    assert p.returncode == 4 and "cannot write the plan to standard output" in p.stderr, p.stderr


def test_a_check_that_reports_nan_keeps_its_verdict(jitbench, tmp_path):
    mine = tmp_path / "nan_detail.py"
    mine.write_text(
        "import numpy as np\n"
        "def make_inputs(n, dtype, seed):\n    return (np.ones(n, dtype='float32'),)\n"
        "def check(out, inputs, n, dtype, seed):\n"
        "    return {'ok': True, 'metric': 'none', 'error': 0.0, 'tolerance': 0.0}, {'value': float('nan')}\n"
        "IMPLEMENTATIONS = {'numpy': lambda adapter, n, dtype: (lambda x: x * 2)}\n")
    res = jitbench("run", "--workload-path", str(mine), "--cases", "nan_detail_8_f32", "--backends", "numpy",
                   "--cold-runs", "1", "--warm-iters", "2")
    assert res.rc == 0, res.stderr
    case = res.case("numpy_nan_detail_8_f32")
    assert case["status"] == "ok" and case["workload"] == {"value": "nan"}
