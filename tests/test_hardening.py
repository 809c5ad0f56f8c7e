"""Hostile and careless use (issue 13): races on one out dir, links planted in
it, closed terminals and pipes, absurd numbers, workers that fork, fill the
disk or report values no field can hold. Each test names the defect it
catches; docs/reliability.md lists them all."""

import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

from conftest import JITBENCH

pytestmark = pytest.mark.quick

CASES = ["--cases", "matmul_8_f32", "--cold-runs", "1", "--warm-iters", "2"]


def run_bg(args, env, **kw):
    return subprocess.Popen([str(JITBENCH), *args], env=dict(os.environ, **env), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def wait_for(path, timeout=60):
    end = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < end, f"{path} never appeared"
        time.sleep(0.05)


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie no one reaps yet counts as gone
    stat = pathlib.Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split(")")[-1].split()[0] != "Z"


# 1. Two runs on one out dir: the second is refused before it writes anything.
def test_second_run_on_a_locked_out_dir_is_refused(jitbench, fake_env, tmp_path):
    out = tmp_path / "shared"
    # The first run's worker waits until the test is done with it (a fixed sleep would race a loaded machine).
    hold = tmp_path / "hold"
    hold.touch()
    env = dict(fake_env(numpy="slow"), FAKE_WORKER_SLEEP="0", FAKE_WORKER_HOLD=str(hold))
    first = run_bg(["run", *CASES, "--backends", "numpy", "--out-dir", str(out)], env)
    try:
        wait_for(out / "environment.json")
        second = jitbench("run", *CASES, "--backends", "numba", "--out-dir", str(out), env=fake_env())
        assert second.rc == 2
        assert f"is in use by another jitbench (pid {first.pid})" in second.stderr, second.stderr
        # validate (and jitbench.load(), which runs it) says the same of a run still being written, not that its
        # files are unlisted
        busy = jitbench("validate", str(out))
        assert busy.rc == 2 and f"is in use by another jitbench (pid {first.pid})" in busy.stderr, busy.stderr
    finally:
        hold.unlink()  # released whatever happened above: no worker is left waiting on it
    assert first.wait(timeout=120) == 0, first.stderr
    index = json.loads((out / "index.json").read_text())
    assert [c["case"] for c in index["cases"]] == ["numpy_matmul_8_f32"]
    assert jitbench("validate", str(out)).rc == 0
    # once the first has finished, the directory is refused for holding results
    third = jitbench("run", *CASES, "--backends", "numba", "--out-dir", str(out), env=fake_env())
    assert third.rc == 2 and "already holds files" in third.stderr


# 2. `report` never writes through a link planted in the out dir.
def test_report_does_not_follow_a_planted_link(jitbench, fake_env, tmp_path):
    res = jitbench("run", *CASES, "--backends", "numpy", env=fake_env())
    assert res.rc == 0, res.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("mine")
    (res.out / "report").symlink_to(elsewhere)
    rep = jitbench("report", str(res.out))
    assert rep.rc != 0
    assert "symbolic link" in rep.stderr, rep.stderr
    assert sorted(p.name for p in elsewhere.iterdir()) == ["keep.txt"]
    assert (elsewhere / "keep.txt").read_text() == "mine"


def test_validate_rejects_index_paths_that_leave_the_out_dir(jitbench, fake_env, tmp_path):
    res = jitbench("run", *CASES, "--backends", "numpy", env=fake_env())
    index = res.index()
    for bad in ("/etc/hostname", "../outside.json", "cases/./x.json"):
        index["files"][0]["path"] = bad
        (res.out / "index.json").write_text(json.dumps(index))
        v = jitbench("validate", str(res.out))
        assert v.rc != 0 and "does not stay inside the out dir" in v.stdout + v.stderr, (bad, v.stdout, v.stderr)


# 3. A closed or full stderr never costs the run.
@pytest.mark.parametrize("how", ["closed_pipe", "dev_full"])
def test_output_errors_do_not_lose_the_run(fake_env, tmp_path, how):
    out = tmp_path / "o"
    args = [str(JITBENCH), "run", *CASES, "--backends", "numpy,numba", "--out-dir", str(out)]
    env = dict(os.environ, **fake_env())
    if how == "dev_full":
        with open("/dev/full", "w") as full:
            rc = subprocess.run(args, env=env, stdout=full, stderr=full).returncode
    else:
        p = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        p.stdout.readline()
        p.stdout.close()  # `| head -n1`
        rc = p.wait(timeout=120)
    assert rc == 0
    index = json.loads((out / "index.json").read_text())
    assert index["complete"] and len(index["cases"]) == 2


# 4. Numbers are range-checked at full width before use.
@pytest.mark.parametrize("flag,value", [("--cold-runs", "4294967296"), ("--warm-iters", "9000000000"),
                                        ("--timeout", "nan"), ("--timeout", "inf"), ("--timeout", "1e10"),
                                        ("--timeout", "-1")])
def test_absurd_numbers_are_refused(jitbench, fake_env, flag, value):
    res = jitbench("run", *CASES, "--backends", "numpy", flag, value, env=fake_env())
    assert res.rc == 2, res.stderr
    assert flag in res.stderr and len(res.stderr.strip().splitlines()) <= 2, res.stderr
    assert not res.out.exists()


def test_suite_integers_are_not_cut_to_32_bits(jitbench, fake_env, tmp_path):
    suite = tmp_path / "s.toml"
    suite.write_text('[suite]\ncold_runs = 4294967296\n[[matrix]]\nbackends = ["numpy"]\nworkloads = ["matmul"]\n'
                     'sizes = [8]\ndtypes = ["f32"]\n')
    res = jitbench("run", "--suite", str(suite), env=fake_env())
    assert res.rc == 2 and "'cold_runs' must be between 1 and 100000 (got 4294967296)" in res.stderr


# 5. A child the worker leaves behind neither extends the run nor outlives it.
@pytest.mark.parametrize("mode", ["fork_linger", "fork_setsid"])
def test_lingering_child_is_ended_with_its_worker(jitbench, fake_env, tmp_path, mode):
    pidfile = tmp_path / "pids"
    env = dict(fake_env(numpy=mode), FAKE_WORKER_PIDFILE=str(pidfile))
    # The child holds the channel for 60 s; under a 20 s timeout the run
    # would time out if jitbench waited for EOF instead of the worker's exit.
    res = jitbench("run", *CASES, "--backends", "numpy", "--timeout", "20", env=env)
    assert res.rc == 0, res.stderr
    assert res.index()["cases"][0]["status"] == "ok"
    pids = [int(x) for x in pidfile.read_text().split()]
    assert len(pids) == 2  # the cold run's child and the warm run's
    assert not any(alive(p) for p in pids), [p for p in pids if alive(p)]


# 6. SIGHUP (a closed terminal) stops the run like SIGTERM: what was measured stays valid.
def test_sighup_keeps_a_valid_out_dir(jitbench, fake_env, tmp_path):
    out = tmp_path / "hup"
    env = dict(fake_env(numba="slow"), FAKE_WORKER_SLEEP="30")
    p = run_bg(["run", *CASES, "--backends", "numpy,numba", "--out-dir", str(out)], env)
    wait_for(out / "cases" / "numpy_matmul_8_f32.json")
    wait_for(out / "logs" / "numba_matmul_8_f32")
    p.send_signal(signal.SIGHUP)
    assert p.wait(timeout=60) == 128 + signal.SIGHUP
    index = json.loads((out / "index.json").read_text())
    assert index["complete"] is False
    assert index["stopped"] == {"reason": "interrupted", "detail": f"signal {int(signal.SIGHUP)}"}
    assert {c["case"]: c["reason"] for c in index["cases"]}["numba_matmul_8_f32"] == "interrupted"
    v = jitbench("validate", str(out))
    assert v.rc == 6 and "valid but incomplete — stopped: interrupted" in v.stdout, v.stdout + v.stderr


# 7. A full disk or a file system gone read-only ends the run cleanly.
def test_disk_full_stops_with_a_valid_out_dir(jitbench, fake_env, small_fs):
    out = small_fs / "out"
    env = dict(fake_env(numba="fill_disk"), FAKE_WORKER_FILL=str(small_fs / "filler"))
    res = jitbench("run", *CASES, "--backends", "numpy,numba,jax_jit_cpu", "--out-dir", str(out), env=env)
    assert res.rc == 4, res.stderr
    assert "stopped after recording" in res.stderr and "internal error" not in res.stderr
    assert not list(out.rglob(".*.tmp"))
    index = json.loads((out / "index.json").read_text())
    assert index["complete"] is False
    assert [c["case"] for c in index["cases"]][:1] == ["numpy_matmul_8_f32"]
    assert "jax_jit_cpu_matmul_8_f32" not in [c["case"] for c in index["cases"]]
    if "stopped" in index:
        assert index["stopped"]["reason"] == "write_failed"
    v = jitbench("validate", str(out))
    assert v.rc == 6 and "valid but incomplete" in v.stdout, v.stdout + v.stderr


def test_read_only_out_dir_is_one_clear_line(jitbench, fake_env, small_fs):
    # Linux refuses to remount a file system read-only while jitbench holds
    # files open for writing, so a read-only out dir is met at the start.
    (small_fs / "out").mkdir()
    subprocess.run(["mount", "-o", "remount,ro", str(small_fs)], check=True)
    res = jitbench("run", *CASES, "--backends", "numpy", "--out-dir", str(small_fs / "out"), env=fake_env())
    assert res.rc == 2, res.stderr
    assert res.stderr.startswith("jitbench: error: ") and "Read-only file system" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1, res.stderr


# 8. Nothing jitbench writes fails its own schema; NaN is a wrong result.
def test_a_report_no_field_can_hold_is_a_named_failure(jitbench, fake_env):
    res = jitbench("run", *CASES, "--backends", "numpy", env=fake_env(numpy="huge"))
    assert res.rc == 2
    case = res.case("numpy_matmul_8_f32")
    assert case["status"] == "failed"
    assert case["reason"] in ("inconsistent_timings", "worker_failed"), case["reason"]
    v = jitbench("validate", str(res.out))
    assert v.rc == 0, v.stdout + v.stderr


USER_WORKLOAD = '''
import numpy as np

def make_inputs(n, dtype, seed):
    return (np.ones(n, dtype=np.float32 if dtype == "f32" else np.float64),)

def check(out, inputs, n, dtype, seed):
    err = float(np.max(np.abs(np.asarray(out, dtype=np.float64) - 2.0 * inputs[0])))
    return {{"ok": err <= 1e-6, "metric": "max_abs", "error": err, "tolerance": 1e-6, "reference": "2x"}}, {{}}

def build(adapter, n, dtype):
    def f(x):
        {body}
    return f

IMPLEMENTATIONS = {{"numpy": build}}
'''


def user_workload(tmp_path, name, body):
    p = tmp_path / f"{name}.py"
    p.write_text(USER_WORKLOAD.format(body=body))
    return p


def test_nan_output_is_incorrect_result(jitbench, tmp_path):
    wl = user_workload(tmp_path, "nan_out", "return x * np.nan")
    res = jitbench("run", "--workload-path", str(wl), "--cases", "nan_out_8_f32", "--backends", "numpy",
                   "--cold-runs", "1", "--warm-iters", "2")
    case = res.case("numpy_nan_out_8_f32")
    assert (case["status"], case["reason"]) == ("failed", "incorrect_result"), case["detail"]
    assert "nan" in case["detail"]
    assert jitbench("validate", str(res.out)).rc == 0


def test_exception_message_with_a_lone_surrogate_is_kept(jitbench, tmp_path):
    wl = user_workload(tmp_path, "surrogate", "raise ValueError('bad byte \\udc80 here')")
    res = jitbench("run", "--workload-path", str(wl), "--cases", "surrogate_8_f32", "--backends", "numpy",
                   "--cold-runs", "1", "--warm-iters", "2")
    case = res.case("numpy_surrogate_8_f32")
    assert (case["status"], case["reason"]) == ("failed", "worker_failed")
    assert "bad byte" in case["detail"] and "here" in case["detail"], case["detail"]
    log = (res.out / case["cold"]["runs"][0]["log"]).read_text(errors="replace")
    assert "ValueError" in log
    assert jitbench("validate", str(res.out)).rc == 0


# 9. compare's gate fails when a case's status got worse.
def test_compare_gate_fails_on_a_status_that_got_worse(jitbench, fake_env):
    base = jitbench("run", *CASES, "--backends", "numpy,numba", env=fake_env())
    new = jitbench("run", *CASES, "--backends", "numpy,numba", env=fake_env(numba="crash"))
    res = jitbench("compare", str(base.out), str(new.out), "--fail-on-regression", "10")
    assert res.rc == 1, res.stdout + res.stderr
    assert "status got worse: numba_matmul_8_f32: ok -> failed (worker_failed)" in res.stderr
    back = jitbench("compare", str(new.out), str(base.out), "--fail-on-regression", "10")
    assert back.rc == 0, back.stdout + back.stderr  # failed -> ok is no regression


# Ids built from user input never collide: two cases that would write one file are refused.
def test_case_ids_that_would_collide_are_refused(jitbench, fake_env, tmp_path):
    (tmp_path / "gpu_matmul.py").write_text(USER_WORKLOAD.format(body="return 2 * x"))
    suite = tmp_path / "s.toml"
    suite.write_text('[suite]\nworkload_paths = ["gpu_matmul.py"]\n[[matrix]]\n'
                     'backends = ["torch_compile", "torch_compile_gpu"]\nworkloads = ["matmul", "gpu_matmul"]\n'
                     'sizes = [8]\ndtypes = ["f32"]\n')
    res = jitbench("run", "--suite", str(suite), env=fake_env())
    assert res.rc == 2, res.stderr
    assert "would share the case id 'torch_compile_gpu_matmul_8_f32': rename the workload" in res.stderr
    assert not res.out.exists()
