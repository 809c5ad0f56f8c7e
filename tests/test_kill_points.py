"""A run killed outright (SIGKILL: a lost node, the OOM killer, `kill -9`) at
every point of a case's life is finished by `run --resume` into a run that
validates, with no case measured twice (README: "run --resume DIR finishes a
run or shard stopped by a signal or killed outright").

Fake workers (tests/fake_worker) and one tiny suite keep each point a few
seconds. Points inside a process are marked by the worker itself, which kills
its parent (FAKE_WORKER_KILL_JITBENCH); the two points between processes by
jitbench's test switch JITBENCH_TEST_KILL_AT (util/interrupt.h, kill_point)."""

import json
import os
import subprocess

import pytest

from conftest import JITBENCH, validate

pytestmark = pytest.mark.quick

SUITE = ('[suite]\nname = "kills"\ncold_runs = 2\nwarm_iters = 2\n'
         '[[matrix]]\nbackends = ["numpy", "jax_jit_cpu"]\nworkloads = ["mc_pi"]\nsizes = [1000]\ndtypes = ["f64"]\n')
CASES = ["numpy_mc_pi_1000_f64", "jax_jit_cpu_mc_pi_1000_f64"]

# (name, environment of the killed run): each a point in the second case's life, or before any case.
POINTS = [
    # While jitbench starts: the starting index written, the worker probe's log beside it (no case yet).
    ("while_probing_the_worker", {"FAKE_WORKER_KILL_JITBENCH": "probe"}),
    ("before_its_first_process", {"JITBENCH_TEST_KILL_AT": "case_opened:2"}),
    ("after_its_reference_is_written", {"FAKE_WORKER_KILL_JITBENCH": "cold_after_reference"}),
    ("during_the_crosscheck", {"FAKE_WORKER_KILL_JITBENCH": "aot"}),
    ("during_the_anatomy", {"FAKE_WORKER_KILL_JITBENCH": "anatomy"}),
    ("mid_warm_process", {"FAKE_WORKER_KILL_JITBENCH": "warm"}),
    # The first case's documents renamed into place, the index that lists them not yet written.
    ("between_its_documents_and_the_index", {"JITBENCH_TEST_KILL_AT": "before_index:4"}),
]


def run(args, env, timeout=120):
    return subprocess.run([str(JITBENCH), *args], env=env, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def resumed_into_a_valid_run(out, fake_env, cases):
    """`run --resume` of a killed run: exit 0, valid, complete, every case ok; its index."""
    resumed = run(["run", "--resume", str(out), "--quiet"], dict(os.environ, **fake_env()))
    assert resumed.returncode == 0, resumed.stderr
    check = run(["validate", str(out)], dict(os.environ))
    assert check.returncode == 0, check.stdout + check.stderr
    index = json.loads((out / "index.json").read_text())
    validate(index, "jitbench.index.v5")
    assert index["complete"] and [c["case"] for c in index["cases"]] == cases
    assert all(c["status"] == "ok" for c in index["cases"]), index["cases"]
    return index


@pytest.mark.parametrize("point,kill_env", POINTS, ids=[p[0] for p in POINTS])
def test_a_run_killed_at_any_point_is_resumed_into_a_valid_run(tmp_path, fake_env, point, kill_env):
    suite = tmp_path / "kills.toml"
    suite.write_text(SUITE)
    out = tmp_path / "out"
    killed = run(["run", "--suite", str(suite), "--out-dir", str(out), "--quiet", "--anatomy", "--anatomy-runs", "1"],
                 dict(os.environ, **fake_env(), **kill_env))
    assert killed.returncode == -9, (killed.returncode, killed.stderr)
    index = json.loads((out / "index.json").read_text())
    assert not index["complete"]
    recorded = [c["case"] for c in index["cases"]]
    assert CASES[1] not in recorded
    index = resumed_into_a_valid_run(out, fake_env, CASES)
    # No case measured twice: what the killed run recorded is kept, the rest measured once.
    assert index["resumed"][-1]["kept"] == len(recorded)
    assert index["resumed"][-1]["remeasured"] == [c for c in CASES if c not in recorded]
    for case_id in CASES:
        case = json.loads((out / "cases" / f"{case_id}.json").read_text())
        assert len(case["cold"]["runs"]) == 2 and len(case["warm"]["runs"]) == 1
    # The second case's reference was made again by its own first process, and is the file listed.
    listed = {f["path"] for f in index["files"]}
    assert f"references/{CASES[1]}.pickle" in listed
    assert not [p for p in (out / "references").iterdir() if p.name.endswith(".tmp")]


# A run whose second case is the native worker's (build/jitbench-native-worker, no AOT cross-check, no anatomy):
# killed at the points it has. Inside its processes by jitbench's counted "process_started" point (the N-th
# worker process of the run just started: the probe, the first case's two cold and one warm process, then the
# native case's), checked by the logs the kill leaves.
NATIVE_SUITE = SUITE.replace('"jax_jit_cpu"', '"native"')
NATIVE_CASES = ["numpy_mc_pi_1000_f64", "native_mc_pi_1000_f64"]
NATIVE_POINTS = [
    ("before_its_first_process", "case_opened:2", None),
    ("mid_cold_process", "process_started:5", "cold-0.log"),
    ("mid_warm_process", "process_started:7", "warm-0.log"),
    ("between_its_documents_and_the_index", "before_index:4", None),
]


@pytest.mark.parametrize("point,kill_at,last_log", NATIVE_POINTS, ids=[p[0] for p in NATIVE_POINTS])
def test_a_run_with_a_native_case_killed_at_any_point_is_resumed(tmp_path, fake_env, point, kill_at, last_log):
    suite = tmp_path / "kills.toml"
    suite.write_text(NATIVE_SUITE)
    out = tmp_path / "out"
    killed = run(["run", "--suite", str(suite), "--out-dir", str(out), "--quiet", "--ceilings", "off"],
                 dict(os.environ, **fake_env(), JITBENCH_TEST_KILL_AT=kill_at))
    assert killed.returncode == -9, (killed.returncode, killed.stderr)
    logs = out / "logs" / NATIVE_CASES[1]
    if last_log:  # the kill came inside that process: its log is the native case's last
        assert sorted(p.name for p in logs.iterdir())[-1] == last_log, sorted(logs.iterdir())
    index = json.loads((out / "index.json").read_text())
    assert not index["complete"]
    recorded = [c["case"] for c in index["cases"]]
    assert recorded == NATIVE_CASES[:1], recorded
    if point == "between_its_documents_and_the_index":  # its case file renamed into place, not yet listed
        assert (out / "cases" / f"{NATIVE_CASES[1]}.json").exists()
    index = resumed_into_a_valid_run(out, fake_env, NATIVE_CASES)
    assert index["resumed"][-1]["kept"] == 1 and index["resumed"][-1]["remeasured"] == NATIVE_CASES[1:]
    for case_id in NATIVE_CASES:
        case = json.loads((out / "cases" / f"{case_id}.json").read_text())
        assert len(case["cold"]["runs"]) == 2 and len(case["warm"]["runs"]) == 1
    assert sorted(p.name for p in logs.iterdir()) == ["cold-0.log", "cold-1.log", "warm-0.log"]
