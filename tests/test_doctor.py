"""`jitbench doctor` and `--affinity`: the machine's checks as JSON that the
schema takes, read from a fake /proc and /sys tree as well as from this
machine; --strict's exit code on a warn; a worker actually pinned to the CPUs
given, and a CPU list that cannot be pinned refused before anything runs."""

import json
import os

import pytest

from conftest import validate

pytestmark = pytest.mark.quick

CASES = ["--cases", "matmul_8_f32", "--backends", "numpy", "--cold-runs", "2", "--warm-iters", "3"]
CHECKS = ["governor", "boost", "smt", "aslr", "load", "steal", "swap", "thp", "isolated_cpus", "threads", "vm",
          "container"]


def cpu_list(text):
    """The kernel's CPU list syntax ("0,2-3") as a sorted list of CPUs."""
    out = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return sorted(out)


def fake_tree(root, governor):
    files = {
        "sys/devices/system/cpu/online": "0-1\n",
        "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor": f"{governor}\n",
        "sys/devices/system/cpu/cpu1/cpufreq/scaling_governor": f"{governor}\n",
        "proc/loadavg": "0.00 0.00 0.00 1/10 1\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_doctor_json_on_this_machine_is_valid_and_every_check_answers(jitbench):
    res = jitbench("doctor", "--json", "--sample", "0.2")
    assert res.rc == 0, res.stderr
    doc = json.loads(res.stdout)
    validate(doc, "jitbench.doctor.v1")
    assert [f["check"] for f in doc["findings"]] == CHECKS
    assert sum(doc["counts"].values()) == len(CHECKS)
    assert doc["root"] == "/"
    # The sample was taken: steal and load come from /proc/stat, not guessed.
    assert doc["facts"]["cpu_sample"]["seconds"] >= 0.2
    assert {f["check"]: f["level"] for f in doc["findings"]}["steal"] != "not_reported"


def test_doctor_reads_a_fake_tree_and_strict_fails_on_a_warn(jitbench, tmp_path):
    root = fake_tree(tmp_path / "slow", "powersave")
    env = {"OMP_NUM_THREADS": "1"}
    res = jitbench("doctor", "--root", str(root), "--sample", "0", "--json", env=env)
    assert res.rc == 0, res.stderr  # advice only
    doc = json.loads(res.stdout)
    validate(doc, "jitbench.doctor.v1")
    levels = {f["check"]: f["level"] for f in doc["findings"]}
    assert levels["governor"] == "warn"
    assert levels["smt"] == levels["aslr"] == levels["thp"] == "not_reported"  # no such file in the tree
    assert levels["steal"] == "not_reported"  # not sampled
    strict = jitbench("doctor", "--root", str(root), "--sample", "0", "--strict", env=env)
    assert strict.rc == 10, strict.stderr
    assert "governor" in strict.stdout and "do: sudo cpupower frequency-set --governor performance" in strict.stdout
    assert strict.stderr.count("\n") == 1 and "--strict" in strict.stderr
    quiet = fake_tree(tmp_path / "fast", "performance")
    assert jitbench("doctor", "--root", str(quiet), "--sample", "0", "--strict", env=env).rc == 0


def test_doctor_refuses_a_root_that_is_not_a_directory(jitbench, tmp_path):
    res = jitbench("doctor", "--root", str(tmp_path / "none"))
    assert res.rc == 2
    assert res.stderr.count("\n") == 1 and "not a directory" in res.stderr


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2,
                    reason="one CPU to run on: pinned and unpinned workers see the same CPU, so pinning cannot be told")
def test_affinity_pins_every_worker_and_is_recorded(jitbench, fake_env, tmp_path):
    allowed = sorted(os.sched_getaffinity(0))
    cpu = max(allowed)  # not all of them: a worker that was not pinned would see more
    seen = tmp_path / "affinity.txt"
    # More BLAS threads than CPUs: a warn the manifest records and the report states.
    env = dict(fake_env(), FAKE_WORKER_AFFINITY_FILE=str(seen), OPENBLAS_NUM_THREADS="4096")
    res = jitbench("run", *CASES, "--affinity", str(cpu), env=env)
    assert res.rc == 0, res.stderr
    lines = seen.read_text().split()
    assert len(lines) == 3 and set(lines) == {str(cpu)}  # 2 cold + 1 warm process, each on that CPU alone
    manifest = json.loads((res.out / "environment.json").read_text())
    validate(manifest, "jitbench.environment.v2")
    assert manifest["affinity"] == {"pinned": True, "cpus": str(cpu)}
    assert manifest["affinity"]["cpus"] == lines[0]  # what is recorded is what the workers' sched_getaffinity saw
    assert [c["check"] for c in manifest["host"]["checks"]] == CHECKS
    assert jitbench("validate", str(res.out)).rc == 0
    assert jitbench("report", str(res.out), env=env).rc == 0
    md = (res.out / "report" / "report.md").read_text()
    assert f"- **Worker CPUs**: {cpu} (pinned with --affinity)" in md
    checks = next(line for line in md.splitlines() if line.startswith("- **Machine checks**: ⚠ "))
    assert "threads: OPENBLAS_NUM_THREADS=4096 on" in checks
    # Without --affinity the workers run wherever jitbench may, and the manifest says which CPUs those are.
    seen.unlink()
    free = jitbench("run", *CASES, env=env)
    assert free.rc == 0, free.stderr
    assert set(seen.read_text().split()) == {",".join(map(str, allowed))} != {str(cpu)}
    free_affinity = json.loads((free.out / "environment.json").read_text())["affinity"]
    assert free_affinity["pinned"] is False
    # Recorded as a CPU list ("0-1" or "0,1"): the same CPUs the workers saw.
    assert cpu_list(free_affinity["cpus"]) == allowed


def test_a_bad_affinity_is_refused_before_anything_runs(jitbench, fake_env, tmp_path):
    for cpus, says in [("1-0", "runs backwards"), ("x", "is not a CPU number"),
                       ("1023", "CPU 1023 is not online here")]:
        out = tmp_path / f"bad{len(says)}"
        res = jitbench("run", *CASES, "--affinity", cpus, "--out-dir", str(out), env=fake_env())
        assert res.rc == 2, (cpus, res.stderr)
        assert res.stderr.count("\n") == 1 and says in res.stderr, res.stderr
        assert not out.exists()


def test_the_thread_check_judges_what_the_workers_get_not_jitbenchs_own_environment(jitbench, fake_env, tmp_path):
    """jitbench is started with 4096 BLAS threads, but --deterministic gives every worker one: the run's
    manifest records and judges the workers' setting (each pinned environment's, with its own variables)."""
    seen = tmp_path / "threads.txt"
    env = dict(fake_env(), OMP_NUM_THREADS="4096", FAKE_WORKER_ENV_FILE=str(seen))
    res = jitbench("run", *CASES, "--deterministic", env=env)
    assert res.rc == 0, res.stderr
    manifest = json.loads((res.out / "environment.json").read_text())
    assert manifest["host"]["machine"]["thread_env"]["OMP_NUM_THREADS"] == "1"
    threads = next(c for c in manifest["host"]["checks"] if c["check"] == "threads")
    assert threads["level"] == "ok" and "OMP_NUM_THREADS=1" in threads["found"], threads
    assert set(seen.read_text().split()) == {"1"}  # what the workers really got
    # Without --deterministic the workers inherit jitbench's 4096: warned.
    loose = jitbench("run", *CASES, env=env)
    manifest = json.loads((loose.out / "environment.json").read_text())
    threads = next(c for c in manifest["host"]["checks"] if c["check"] == "threads")
    assert threads["level"] == "warn" and "OMP_NUM_THREADS=4096" in threads["found"], threads
