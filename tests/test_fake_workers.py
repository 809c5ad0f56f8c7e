"""The real binary against a worker that crashes, hangs, lies and prints garbage.
Every outcome is a status and reason in the artifacts; none stops the suite."""

import json
import os
import time

import pytest

from conftest import validate

pytestmark = pytest.mark.quick

CASES = ["--cases", "matmul_8_f32", "--cold-runs", "2", "--warm-iters", "3"]


def statuses(res):
    return {c["case"]: (c["status"], c["reason"]) for c in res.index()["cases"]}


def test_all_ok_exit_zero_and_valid(jitbench, fake_env):
    res = jitbench("run", *CASES, "--backends", "numpy,numba", env=fake_env())
    assert res.rc == 0, res.stderr
    assert statuses(res) == {"numpy_matmul_8_f32": ("ok", None), "numba_matmul_8_f32": ("ok", None)}
    case = res.case("numpy_matmul_8_f32")
    assert len(case["cold"]["runs"]) == 2
    assert case["warm"]["calls_s"] == [0.001, 0.0011, 0.0009]
    validate(case, "jitbench.case.v7")
    # What the worker printed went to its log, not into the protocol.
    log = (res.out / case["cold"]["runs"][0]["log"]).read_text()
    assert "may print to stdout freely" in log
    assert jitbench("validate", str(res.out)).rc == 0


def test_several_warm_processes(jitbench, fake_env):
    res = jitbench("run", "--cases", "matmul_8_f32", "--cold-runs", "1", "--warm-iters", "3", "--warm-runs", "3",
                   "--backends", "numpy,numba", env=fake_env(numba="crash_warm"))
    assert res.rc == 2, res.stderr  # a failed case
    assert "1 cold runs + 3 warm runs of 3 calls each" in res.stderr
    case = res.case("numpy_matmul_8_f32")
    validate(case, "jitbench.case.v7")
    assert case["config"]["warm_runs"] == 3
    assert [r["index"] for r in case["warm"]["runs"]] == [0, 1, 2]
    assert case["warm"]["run"] == case["warm"]["runs"][0]
    assert case["warm"]["calls_s"] == [0.001, 0.0011, 0.0009] * 3
    assert case["warm"]["process_medians_s"] == [0.001] * 3
    # A warm process that crashes ends the case; no further warm process runs.
    bad = res.case("numba_matmul_8_f32")
    assert (bad["status"], bad["reason"]) == ("failed", "worker_failed")
    assert len(bad["warm"]["runs"]) == 1 and bad["warm"]["calls_s"] == []
    analysis = json.loads((res.out / "analysis.json").read_text())
    var = next(c for c in analysis["cases"] if c["case"] == "numpy_matmul_8_f32")["variance"]
    assert var["between_process_cv_warm"] == 0 and var["within_process_cv_warm"] > 0
    assert jitbench("validate", str(res.out)).rc == 0


@pytest.mark.parametrize(
    "mode,reason,detail",
    [
        ("crash", "worker_failed", "signal 6"),
        ("exit3", "worker_failed", "code 3"),
        ("garbage", "worker_failed", "malformed message: not valid JSON"),
        ("flood", "worker_failed", "size limit"),
        ("noresult", "worker_failed", "no result"),
        ("wrong_answer", "incorrect_result", "exceeds"),
    ],
)
def test_failure_modes_fail_one_case_not_the_suite(jitbench, fake_env, mode, reason, detail):
    res = jitbench("run", *CASES, "--backends", "numpy,numba", env=fake_env(numpy=mode))
    assert res.rc == 2, res.stderr  # a failed case makes the exit code 2 ...
    st = statuses(res)
    assert st["numpy_matmul_8_f32"] == ("failed", reason)
    assert st["numba_matmul_8_f32"] == ("ok", None)  # ... and the next case still ran
    case = res.case("numpy_matmul_8_f32")
    assert detail in case["detail"]
    assert len(case["cold"]["runs"]) == 1  # a case stops at its first bad run
    validate(case, "jitbench.case.v7")
    assert jitbench("validate", str(res.out)).rc == 0


def test_missing_dependency_is_warn_and_exit_zero(jitbench, fake_env):
    res = jitbench("run", *CASES, "--backends", "numpy", env=fake_env(numpy="missing"))
    assert res.rc == 0, res.stderr
    assert statuses(res) == {"numpy_matmul_8_f32": ("warn", "missing_dependency: numpy")}


def test_hang_is_killed_with_its_children(jitbench, fake_env, tmp_path):
    pidfile = tmp_path / "pids"
    env = fake_env(numpy="hang")
    env["FAKE_WORKER_PIDFILE"] = str(pidfile)
    t0 = time.monotonic()
    res = jitbench("run", *CASES, "--backends", "numpy,numba", "--timeout", "2", env=env)
    assert time.monotonic() - t0 < 60
    assert res.rc == 2
    st = statuses(res)
    assert st["numpy_matmul_8_f32"] == ("failed", "timeout")
    assert st["numba_matmul_8_f32"] == ("ok", None)
    # The worker's own child was in its process group and died with it (a
    # zombie waiting for init to reap it counts as dead).
    for pid in map(int, pidfile.read_text().split()):
        assert not alive(pid), pid


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")


def test_interrupted_run_keeps_results(jitbench, fake_env, tmp_path):
    import signal
    import subprocess

    from conftest import JITBENCH

    out = tmp_path / "interrupted"
    env = dict(os.environ, **fake_env(numba="hang"))
    proc = subprocess.Popen([str(JITBENCH), "run", *CASES, "--backends", "numpy,numba", "--out-dir", str(out)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    # The numba case has started its (hanging) worker once its first log is there: a fixed sleep after the numpy
    # case would, on a loaded machine, interrupt before it began and leave it unlisted.
    while not (out / "logs" / "numba_matmul_8_f32" / "cold-0.log").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert (out / "logs" / "numba_matmul_8_f32" / "cold-0.log").exists(), "the numba case never started"
    assert (out / "cases" / "numpy_matmul_8_f32.json").exists()
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    rc = proc.wait(timeout=30)
    assert rc == 128 + signal.SIGINT
    index = json.loads((out / "index.json").read_text())
    assert index["complete"] is False
    st = {c["case"]: c["status"] for c in index["cases"]}
    assert st["numpy_matmul_8_f32"] == "ok"
    assert st.get("numba_matmul_8_f32") == "failed"
    assert jitbench("validate", str(out)).rc == 6  # valid, but incomplete


def test_warm_cache_without_hits_is_cache_not_used(jitbench, fake_env):
    res = jitbench("run", *CASES, "--backends", "numpy,numba", "--cache-policy", "warm_cache",
                   env=fake_env(numpy="nocache"))
    assert res.rc == 0, res.stderr
    st = statuses(res)
    assert st["numpy_matmul_8_f32__warm_cache"] == ("warn", "cache_not_used")
    assert st["numba_matmul_8_f32__warm_cache"] == ("ok", None)
    case = res.case("numpy_matmul_8_f32__warm_cache")
    assert case["priming"] is not None and case["priming"]["log"].endswith("priming.log")
    assert len(case["cold"]["runs"]) == 2  # every run is still measured and reported
    assert jitbench("validate", str(res.out)).rc == 0


@pytest.mark.parametrize(
    "lie,reason,detail",
    [
        ("lie_phases", "inconsistent_timings", "more than the 0.0002 s first call"),
        ("lie_total", "inconsistent_timings", "from spawn to exit"),
        ("lie_segments", "inconsistent_timings", "worker's own total"),
        ("unsync", "unsynchronized", "still had work queued"),
        ("wrong_first", "incorrect_result", "first (compiling) call"),
    ],
)
def test_a_lying_worker_fails_the_check_it_lies_to(jitbench, fake_env, lie, reason, detail):
    res = jitbench("run", *CASES, "--backends", "numpy,numba", env=fake_env(numpy=lie))
    assert res.rc == 2, res.stderr
    st = statuses(res)
    assert st["numpy_matmul_8_f32"] == ("failed", reason)
    assert st["numba_matmul_8_f32"] == ("ok", None)  # the honest worker passes the same checks
    assert detail in res.case("numpy_matmul_8_f32")["detail"]
    assert jitbench("validate", str(res.out)).rc == 0


def test_a_cache_hit_the_kernel_never_saw_is_not_a_hit(jitbench, fake_env):
    res = jitbench("run", *CASES, "--backends", "numpy,numba", "--cache-policy", "warm_cache",
                   env=fake_env(numpy="cache_lie"))
    st = statuses(res)
    assert st["numpy_matmul_8_f32__warm_cache"] == ("warn", "cache_evidence_conflict")
    assert st["numba_matmul_8_f32__warm_cache"] == ("ok", None)
    case = res.case("numpy_matmul_8_f32__warm_cache")
    # Every measured process is checked, the warm one too.
    assert case["warm"]["runs"][0]["reason"] == "cache_evidence_conflict"
    md = (res.out / "summary.md").read_text()
    assert "cache_evidence_conflict" in md


def test_warm_process_of_a_warm_cache_case_is_checked(jitbench, fake_env):
    res = jitbench("run", *CASES, "--backends", "numpy", "--cache-policy", "warm_cache",
                   env=fake_env(numpy="nocache"))
    case = res.case("numpy_matmul_8_f32__warm_cache")
    assert [r["reason"] for r in case["warm"]["runs"]] == ["cache_not_used"]


def test_phases_the_ahead_of_time_compile_contradicts_are_flagged(jitbench, fake_env, quiet_machine):
    # On a quiet machine: a disagreement on an interfered run is no warning (test_interference.py).
    res = jitbench("run", *CASES, "--backends", "jax_jit_cpu,numpy",
                   env=dict(fake_env(jax_jit_cpu="phases_disagree", numpy="ok"), **quiet_machine))
    assert res.rc == 0, res.stderr
    case = res.case("jax_jit_cpu_matmul_8_f32")
    assert case["crosscheck"]["mode"] == "aot" and case["crosscheck"]["log"].endswith("crosscheck.log")
    analysis = json.loads((res.out / "analysis.json").read_text())
    x = next(c for c in analysis["cases"] if c["case"] == "jax_jit_cpu_matmul_8_f32")["crosscheck"]
    assert x["agrees"] is False
    assert x["steps"]["compile"]["agrees"] is False
    assert x["steps"]["compile"]["aot_s"] == pytest.approx(0.05)
    phases = (res.out / "summary.md").read_text().split("## Phases of the first call")[1].split("\n## ")[0]
    jax = phases.split("\n### `jax_jit_cpu`\n")[1].split("\n### ")[0]  # the backend's own table
    row = next(line for line in jax.splitlines() if line.startswith("| `matmul_8_f32` |"))
    assert "**disagrees**" in row
    # numpy is not cross-checked: it compiles nothing.
    assert res.case("numpy_matmul_8_f32")["crosscheck"] is None
    assert jitbench("validate", str(res.out)).rc == 0
    honest = jitbench("run", *CASES, "--backends", "jax_jit_cpu", env=fake_env(jax_jit_cpu="ok"))
    analysis = json.loads((honest.out / "analysis.json").read_text())
    assert analysis["cases"][0]["crosscheck"]["agrees"] is True


# No number on the worker's word: every bypass of a check is itself a named failure or warning.
@pytest.mark.parametrize(
    "lie,status,reason,detail",
    [
        ("missing_total", "failed", "protocol_violation: missing total_s", "missing total_s"),
        ("missing_verify_first", "failed", "protocol_violation: missing verify_first", "missing verify_first"),
        ("hidden_phase", "failed", "protocol_violation: phase 'warmup' is not declared in phase_names", "warmup"),
        ("dup_phase", "failed", "protocol_violation: phase 'compile' declared twice", "declared twice"),
        ("bf16_cpu", "failed", "precision_mismatch", "bf16 products for float32 on a CPU"),
        ("cold_hit", "warn", "cache_not_cold", "hit(s) in a cold run"),
        ("cold_write", "warn", "cache_not_cold", "default settings write no compile cache"),
        ("outside_cache", "warn", "cache_not_cold", "/home/user/.cache/fake"),
    ],
)
def test_a_worker_cannot_skip_a_check(jitbench, fake_env, lie, status, reason, detail):
    res = jitbench("run", *CASES, "--backends", "numpy,numba", env=fake_env(numpy=lie))
    st = statuses(res)
    assert st["numpy_matmul_8_f32"] == (status, reason)
    assert st["numba_matmul_8_f32"] == ("ok", None)  # the honest worker passes the same checks
    assert detail in res.case("numpy_matmul_8_f32")["detail"]
    assert res.rc == (2 if status == "failed" else 0), res.stderr
    assert jitbench("validate", str(res.out)).rc == 0


@pytest.mark.parametrize("lie", ["cache_lie", "hit_without_files"])
def test_a_warm_cache_hit_needs_an_entry_jitbench_saw_read(jitbench, fake_env, lie):
    res = jitbench("run", *CASES, "--backends", "numpy,numba", "--cache-policy", "warm_cache",
                   env=fake_env(numpy=lie))
    st = statuses(res)
    assert st["numpy_matmul_8_f32__warm_cache"] == ("warn", "cache_evidence_conflict")
    assert st["numba_matmul_8_f32__warm_cache"] == ("ok", None)
    run = res.case("numpy_matmul_8_f32__warm_cache")["cold"]["runs"][0]
    seen = run["cache_observed"]
    assert seen["watched"] is True and seen["entries_read"] == 0
    assert seen["files_before"] == (1 if lie == "cache_lie" else 0)
    honest = res.case("numba_matmul_8_f32__warm_cache")["cold"]["runs"][0]["cache_observed"]
    assert honest["entries_read"] == 1 and honest["files_before"] == 1


def test_a_users_own_cache_never_serves_a_cold_run(jitbench, fake_env, tmp_path):
    # The fake reports hits whenever JAX_COMPILATION_CACHE_DIR reaches it, as JAX would.
    env = fake_env(numpy="env_cache")
    env.update({"JAX_COMPILATION_CACHE_DIR": str(tmp_path / "mine"), "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
                "TF_XLA_FLAGS": f"--tf_xla_persistent_cache_directory={tmp_path} --tf_xla_auto_jit=2"})
    res = jitbench("run", *CASES, "--backends", "numpy", env=env)
    assert res.rc == 0, res.stderr
    assert statuses(res)["numpy_matmul_8_f32"] == ("ok", None)
    case = res.case("numpy_matmul_8_f32")
    assert case["cold"]["runs"][0]["worker"]["env"]["JAX_COMPILATION_CACHE_DIR"] is None  # it never reached the worker
    found = {f["variable"]: f["action"] for f in case["inherited_cache_settings"]}
    assert found["JAX_COMPILATION_CACHE_DIR"] == "removed"
    assert found["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] == "removed"
    assert found["TF_XLA_FLAGS"].startswith("removed the flag(s) --tf_xla_persistent_cache_directory=")
    assert case["worker_env"]["TF_XLA_FLAGS"] == "--tf_xla_auto_jit=2"  # the user's other flag is kept
    md = (res.out / "summary.md").read_text()
    assert "## Compile-cache settings kept from the workers" in md and "`JAX_COMPILATION_CACHE_DIR=" in md


def test_a_crosscheck_that_disagrees_makes_the_case_warn(jitbench, fake_env, quiet_machine):
    res = jitbench("run", *CASES, "--backends", "jax_jit_cpu",
                   env=dict(fake_env(jax_jit_cpu="phases_disagree"), **quiet_machine))
    assert res.rc == 0, res.stderr
    assert statuses(res)["jax_jit_cpu_matmul_8_f32"] == ("warn", "crosscheck_disagrees")
    case = res.case("jax_jit_cpu_matmul_8_f32")
    verdict = case["crosscheck_verdict"]
    assert verdict["bound"] == {"factor": 2.0, "abs_s": 0.005} and verdict["agrees"] is False
    assert "compile" in case["detail"]
    assert jitbench("validate", str(res.out)).rc == 0
