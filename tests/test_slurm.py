"""scripts/slurm/ on a real Slurm: a single-node cluster from Debian's
packages (scripts/slurm/local-cluster.sh: munged, slurmctld, slurmd under a
temporary directory, stopped afterwards), a 3-task job array of a small suite
and the merge job that runs when every task has ended (afterany), and the same
with a task killed and cases failing. scripts/test.sh installs
the packages (setup.sh --with-slurm) and sets JITBENCH_REQUIRE_SLURM=1, so in
CI this test runs rather than skips."""

import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from conftest import ROOT

pytestmark = pytest.mark.heavy("Slurm")

SMALL = ROOT / "tests" / "data" / "suites" / "small-shards.toml"
CLUSTER = ROOT / "scripts" / "slurm" / "local-cluster.sh"
HAVE_SLURM = all(shutil.which(c) for c in ("munged", "slurmctld", "slurmd", "sbatch")) and os.geteuid() == 0


def gone(pid):
    """Exited (a daemon's zombie, waiting for whoever adopted it, counts as exited)."""
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


@pytest.fixture
def cluster(tmp_path):
    if not HAVE_SLURM:
        if os.environ.get("JITBENCH_REQUIRE_SLURM") == "1":
            pytest.fail("Slurm is required here (JITBENCH_REQUIRE_SLURM=1) but munged/slurmctld/slurmd/sbatch "
                        "are missing or this is not root: scripts/setup.sh --with-slurm installs them")
        pytest.skip("no Slurm packages, or not root: scripts/setup.sh --with-slurm, then run as root")
    state = tmp_path / "cluster"
    started = subprocess.run([str(CLUSTER), "start", str(state)], capture_output=True, text=True, timeout=120)
    assert started.returncode == 0, started.stderr + started.stdout
    env = dict(os.environ, SLURM_CONF=str(state / "slurm.conf"))
    try:
        yield env
    finally:
        pids = [int((state / p).read_text()) for p in ("run/slurmd.pid", "run/slurmctld.pid", "munge/munged.pid")
                if (state / p).exists()]
        subprocess.run([str(CLUSTER), "stop", str(state)], timeout=60)
        assert len(pids) == 3 and all(gone(pid) for pid in pids), pids  # stopped, by the pids it started


def job_state(env, job):
    out = subprocess.run(["scontrol", "show", "job", job], capture_output=True, text=True, env=env).stdout
    states = [tok.split("=", 1)[1] for tok in out.split() if tok.startswith("JobState=")]
    return states


def test_a_suite_as_a_job_array_merges_into_one_run(cluster, tmp_path, jitbench):
    out_root = tmp_path / "bench"
    sub = subprocess.run([str(ROOT / "scripts" / "slurm" / "submit.sh"), str(SMALL), str(out_root), "3"],
                         capture_output=True, text=True, env=cluster, timeout=60)
    assert sub.returncode == 0, sub.stderr
    array, merge = sub.stdout.split()
    deadline = time.time() + 400
    while time.time() < deadline:
        states = job_state(cluster, merge)
        if states and states[0] in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL"):
            break
        time.sleep(1)
    logs = {p.name: p.read_text() for p in (out_root / "slurm").glob("*.out")}
    assert job_state(cluster, merge) == ["COMPLETED"], logs
    assert job_state(cluster, array) == ["COMPLETED"] * 3, logs
    assert sorted(logs) == ["merge.out", "task-0.out", "task-1.out", "task-2.out"]
    merged = out_root / "merged"
    assert jitbench("validate", str(merged), out=False).rc == 0
    assert jitbench("report", str(merged), out=False).rc == 0
    assert jitbench("compare", str(out_root / "shard-1"), str(merged), out=False).rc == 0
    # Every planned case exactly once, with the shard's own results.
    planned = [c["case"] for c in json.loads(jitbench("plan", "--suite", str(SMALL), "--json", out=False).stdout)["cases"]]
    index = json.loads((merged / "index.json").read_text())
    assert [c["case"] for c in index["cases"]] == planned
    seen = []
    for k in (1, 2, 3):
        shard = out_root / f"shard-{k}"
        for c in json.loads((shard / "index.json").read_text())["cases"]:
            seen.append(c["case"])
            assert (merged / c["path"]).read_bytes() == (shard / c["path"]).read_bytes()
    assert sorted(seen) == sorted(planned)
    assert index["complete"] is True and len(index["merged"]["shards"]) == 3


def wait_for(env, job, states, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        got = job_state(env, job)
        if got and all(s in states for s in got):
            return got
        time.sleep(1)
    return job_state(env, job)


ENDED = ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY")


def test_a_killed_task_and_a_failed_case_leave_no_job_pending(cluster, tmp_path, jitbench):
    """One task killed while it measures, failed cases in the others: the merge
    job runs anyway (afterany), names the missing shard with the command that
    resubmits just that task, and that command completes the run."""
    out_root = tmp_path / "bench"
    env = dict(cluster, JITBENCH_WORKER_DIR=str(ROOT / "tests" / "fake_worker"), JITBENCH_PYTHON=sys.executable,
               FAKE_WORKER_MODES="python=wrong_answer,numpy=slow", FAKE_WORKER_SLEEP="6")
    sub = subprocess.run([str(ROOT / "scripts" / "slurm" / "submit.sh"), str(SMALL), str(out_root), "3",
                          "--stop-before", "30"], capture_output=True, text=True, env=env, timeout=60)
    assert sub.returncode == 0, sub.stderr
    array, merge = sub.stdout.split()
    assert wait_for(env, f"{array}_0", ("RUNNING",), 120) == ["RUNNING"]
    time.sleep(3)  # inside its first (slow) case
    subprocess.run(["scancel", f"{array}_0"], env=env, check=True)
    assert wait_for(env, merge, ENDED, 400)[0] == "FAILED"  # merge exit 5: incomplete, and it ran
    logs = {p.name: p.read_text() for p in (out_root / "slurm").glob("*.out")}
    states = job_state(env, array)
    assert "PENDING" not in states and "RUNNING" not in states, (states, logs)
    assert "resubmit the missing shards (array task indices 0)" in logs["merge.out"], logs["merge.out"]
    # The tasks with failed cases completed their shards.
    for k in (2, 3):
        index = json.loads((out_root / f"shard-{k}" / "index.json").read_text())
        assert index["complete"] is True
        assert any(c["status"] == "failed" for c in index["cases"]), index["cases"]
        assert index["slurm"]["SLURM_ARRAY_TASK_ID"] == str(k - 1)
    # The command merge.out names finishes the run.
    again = subprocess.run([str(out_root / "slurm" / "resubmit.sh"), "0"], capture_output=True, text=True, env=env,
                           timeout=60)
    assert again.returncode == 0, again.stderr
    array2, merge2 = again.stdout.split()
    assert wait_for(env, merge2, ENDED, 400) == ["COMPLETED"], (out_root / "slurm" / "merge.out").read_text()
    merged = sorted(out_root.glob("merged-*"))[-1]
    index = json.loads((merged / "index.json").read_text())
    assert index["complete"] is True and len(index["cases"]) == 8
    shard1 = next(s for s in index["merged"]["shards"] if s["shard"] == "1/3")
    assert shard1["resumed"] and shard1["slurm"]["SLURM_ARRAY_TASK_ID"] == "0"
    assert jitbench("validate", str(merged), out=False).rc == 0
    # Both attempts of task 0 are in its log, each under its own header.
    assert (out_root / "slurm" / "task-0.out").read_text().count("=== jitbench shard 1/3") == 2
