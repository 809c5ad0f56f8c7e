"""Issue 15 without a scheduler: `jitbench plan`, `run --shard K/N`, `merge`
and `run --resume`. Behaviour only: which cases land where, what is refused
and why, what the merged run holds; never how long anything took.
tests/test_slurm.py runs the same through a real Slurm job array."""

import hashlib
import json
import os
import shutil
import signal
import subprocess
import time

import pytest

from conftest import JITBENCH, ROOT, validate

pytestmark = pytest.mark.quick

SMALL = str(ROOT / "tests" / "data" / "suites" / "small-shards.toml")


def plan(jitbench, *args):
    res = jitbench("plan", "--suite", SMALL, "--json", *args, out=False)
    assert res.rc == 0, res.stderr
    doc = json.loads(res.stdout)
    validate(doc, "jitbench.plan.v1")
    return doc


def run_shards(jitbench, tmp_path, count):
    dirs = []
    for k in range(1, count + 1):
        d = tmp_path / f"shard-{k}"
        res = jitbench("run", "--suite", SMALL, "--shard", f"{k}/{count}", "--out-dir", str(d), "--quiet")
        assert res.rc == 0, res.stderr
        dirs.append(d)
    return dirs


def rehash(out_dir):
    """Rewrites index.json's sha256 list after a deliberate edit, as a careful forger would."""
    index = json.loads((out_dir / "index.json").read_text())
    for f in index["files"]:
        data = (out_dir / f["path"]).read_bytes()
        f["sha256"], f["bytes"] = hashlib.sha256(data).hexdigest(), len(data)
    (out_dir / "index.json").write_text(json.dumps(index, indent=2))


def test_plan_is_stable_and_its_shards_partition_it(jitbench):
    whole = plan(jitbench)
    assert plan(jitbench) == whole  # stable: same ids, same order, same digest
    ids = [c["case"] for c in whole["cases"]]
    assert len(ids) == whole["n_planned"] == 8 and len(set(ids)) == 8
    seen = []
    for k in (1, 2, 3):
        part = plan(jitbench, "--shard", f"{k}/3")
        assert part["plan_digest"] == whole["plan_digest"]
        assert all(c["shard"] == f"{k}/3" for c in part["cases"])
        got = [c["case"] for c in part["cases"]]
        assert got == [i for i in ids if i in got], "a shard keeps the plan's order"
        seen += got
    assert sorted(seen) == sorted(ids), "every case in exactly one shard"
    text = jitbench("plan", "--suite", SMALL, out=False).stdout
    assert [line.split()[0] for line in text.splitlines()[1:]] == ids
    for bad in ("0/3", "4/3", "x", "1/0", "2"):
        res = jitbench("plan", "--suite", SMALL, "--shard", bad, out=False)
        assert res.rc == 2 and "--shard" in res.stderr and len(res.stderr.strip().splitlines()) == 1, bad


def test_costs_from_an_earlier_run_balance_the_shards(jitbench, tmp_path):
    prev = jitbench("run", "--suite", SMALL, "--quiet")
    assert prev.rc == 0, prev.stderr
    doc = plan(jitbench, "--shard", "1/2", "--costs", str(prev.out))
    assert doc["shard"]["costs"].startswith("measured in") and "8 of 8 cases" in doc["shard"]["costs"]
    # The expected cost of each case is what that case took before, all its processes together.
    measured = {}
    for c in prev.index()["cases"]:
        case = prev.case(c["case"])
        measured[c["case"]] = sum(r["wall_s"] for part in ("cold", "warm") for r in case[part]["runs"])
    for c in doc["cases"]:
        assert c["expected_cost_s"] == pytest.approx(measured[c["case"]], rel=1e-6)
    # Longest first to the least loaded shard: no shard exceeds the other by more than its largest case.
    loads = []
    for k in (1, 2):
        loads.append(sum(c["expected_cost_s"] for c in plan(jitbench, "--shard", f"{k}/2", "--costs",
                                                              str(prev.out))["cases"]))
    assert abs(loads[0] - loads[1]) <= max(measured.values()) + 1e-9
    res = jitbench("plan", "--suite", SMALL, "--shard", "1/2", "--costs", str(tmp_path / "nowhere"), out=False)
    assert res.rc == 2 and "nowhere" in res.stderr


def test_shards_merge_into_one_valid_run(jitbench, tmp_path):
    dirs = run_shards(jitbench, tmp_path, 3)
    for k, d in enumerate(dirs, 1):
        index = json.loads((d / "index.json").read_text())
        validate(index, "jitbench.index.v5")
        assert index["shard"]["index"] == k and index["shard"]["count"] == 3
        assert (d / "environment.json").exists()
    merged = tmp_path / "merged"
    res = jitbench("merge", str(merged), *map(str, dirs), out=False)
    assert res.rc == 0, res.stderr
    assert jitbench("validate", str(merged), out=False).rc == 0
    index = json.loads((merged / "index.json").read_text())
    validate(index, "jitbench.index.v5")
    assert index["complete"] is True
    assert index["merged"]["missing_shards"] == [] and index["merged"]["missing_cases"] == []
    # The union of the shards, each case once, in the plan's order, byte for byte.
    union = {}
    for d in dirs:
        for c in json.loads((d / "index.json").read_text())["cases"]:
            assert c["case"] not in union
            union[c["case"]] = (d / c["path"]).read_bytes()
    ids = [c["case"] for c in index["cases"]]
    assert ids == [c["case"] for c in plan(jitbench)["cases"]]
    assert set(ids) == set(union)
    for c in index["cases"]:
        assert (merged / c["path"]).read_bytes() == union[c["case"]], c["case"]
        assert c["environment"] == "environment.json"  # one machine: one environment
        assert (merged / "logs" / c["case"]).is_dir()
    assert [s["shard"] for s in index["merged"]["shards"]] == ["1/3", "2/3", "3/3"]
    analysis = json.loads((merged / "analysis.json").read_text())
    assert {c["case"] for c in analysis["cases"]} == set(ids)
    assert (merged / "ml" / "ml_suite.json").exists()
    assert "## Environments" not in (merged / "summary.md").read_text()
    assert jitbench("report", str(merged), out=False).rc == 0
    assert jitbench("compare", str(dirs[0]), str(merged), out=False).rc == 0


def test_merge_refuses_what_cannot_be_one_run(jitbench, tmp_path):
    dirs = run_shards(jitbench, tmp_path, 2)
    # A tampered shard, named with its path and why.
    bad = tmp_path / "tampered"
    shutil.copytree(dirs[1], bad)
    case = next((bad / "cases").iterdir())
    case.write_text(case.read_text().replace('"ok"', '"failed"'))
    res = jitbench("merge", str(tmp_path / "m1"), str(dirs[0]), str(bad), out=False)
    assert res.rc == 2 and str(bad) in res.stderr and "sha256 differs" in res.stderr
    assert not (tmp_path / "m1").exists(), "nothing is written when a shard is refused"
    # The same shard twice.
    res = jitbench("merge", str(tmp_path / "m2"), str(dirs[0]), str(dirs[0]), out=False)
    assert res.rc == 2 and "given twice" in res.stderr
    # Overlapping shards: shard 1's cases claiming to be shard 2 (an index edited and re-hashed).
    twin = tmp_path / "twin"
    shutil.copytree(dirs[0], twin)
    index = json.loads((twin / "index.json").read_text())
    index["shard"]["index"] = 2
    (twin / "index.json").write_text(json.dumps(index))
    res = jitbench("merge", str(tmp_path / "m3"), str(dirs[0]), str(twin), out=False)
    assert res.rc == 2 and "is in two shards" in res.stderr, res.stderr
    # A plain run is not a shard; a shard of another plan (another split) is refused.
    plain = jitbench("run", "--suite", SMALL, "--quiet", "--cases", "mc_pi_1000_f64")
    res = jitbench("merge", str(tmp_path / "m4"), str(dirs[0]), str(plain.out), out=False)
    assert res.rc == 2 and "is not a shard" in res.stderr
    other = tmp_path / "other"
    assert jitbench("run", "--suite", SMALL, "--shard", "1/3", "--out-dir", str(other), "--quiet").rc == 0
    res = jitbench("merge", str(tmp_path / "m5"), str(dirs[1]), str(other), out=False)
    assert res.rc == 2 and "different plans" in res.stderr
    # Another suite with the very same cases (so the same plan digest): refused by its name.
    renamed = tmp_path / "renamed.toml"
    renamed.write_text(open(SMALL).read().replace('name = "small-shards"', 'name = "another"'))
    other_suite = tmp_path / "other-suite"
    assert jitbench("run", "--suite", str(renamed), "--shard", "2/2", "--out-dir", str(other_suite), "--quiet").rc == 0
    res = jitbench("merge", str(tmp_path / "m7"), str(dirs[0]), str(other_suite), out=False)
    assert res.rc == 2 and "shards of different suites" in res.stderr, res.stderr
    # A shard written by another jitbench version.
    older = tmp_path / "older"
    shutil.copytree(dirs[1], older)
    index = json.loads((older / "index.json").read_text())
    index["jitbench_version"] = "0.0.9"
    (older / "index.json").write_text(json.dumps(index))
    res = jitbench("merge", str(tmp_path / "m8"), str(dirs[0]), str(older), out=False)
    assert res.rc == 2 and "different jitbench versions" in res.stderr, res.stderr
    # A missing shard: the merged run is written, incomplete, and the missing shard and cases are named.
    res = jitbench("merge", str(tmp_path / "m6"), str(dirs[0]), out=False)
    assert res.rc == 5, res.stderr
    assert "shard 2/2 is missing; measure it with: " in res.stderr and "--shard 2/2" in res.stderr, res.stderr
    index = json.loads((tmp_path / "m6" / "index.json").read_text())
    missing = [c["case"] for c in json.loads((dirs[1] / "index.json").read_text())["cases"]]
    assert index["complete"] is False and index["merged"]["missing_shards"] == ["2/2"]
    assert sorted(index["merged"]["missing_cases"]) == sorted(missing)
    assert jitbench("validate", str(tmp_path / "m6"), out=False).rc == 6  # valid, but missing a shard


def test_shards_from_different_machines_keep_their_environment(jitbench, tmp_path):
    dirs = run_shards(jitbench, tmp_path, 2)
    env = json.loads((dirs[1] / "environment.json").read_text())
    env["host"]["cpu"]["model"] = "Another CPU"
    (dirs[1] / "environment.json").write_text(json.dumps(env))
    rehash(dirs[1])
    merged = tmp_path / "merged"
    assert jitbench("merge", str(merged), *map(str, dirs), out=False).rc == 0
    assert jitbench("validate", str(merged), out=False).rc == 0
    index = json.loads((merged / "index.json").read_text())
    assert index["merged"]["environments"] == ["environments/env-1.json", "environments/env-2.json"]
    env_of = {c["case"]: c["environment"] for c in index["cases"]}
    shard2 = {c["case"] for c in json.loads((dirs[1] / "index.json").read_text())["cases"]}
    for case, e in env_of.items():
        assert e == ("environments/env-2.json" if case in shard2 else "environments/env-1.json")
    assert json.loads((merged / "environments" / "env-2.json").read_text())["host"]["cpu"]["model"] == "Another CPU"
    summary = (merged / "summary.md").read_text()
    assert "## Environments" in summary and "Another CPU" in summary
    # Every comparison with the floor says whether it crosses environments, and is right.
    rows = json.loads((merged / "analysis.json").read_text())["throughput"]
    crossing = [r for r in rows if r["floor"] and r["crosses_environments"]]
    for r in rows:
        if r["floor"]:
            assert r["crosses_environments"] == (env_of[r["case"]] != env_of[r["floor"]["case"]])
    if crossing:
        assert "⚠ crosses environments" in summary
    # compare says so too, before its table; two runs of one machine say nothing of the kind. (The shards
    # share no case, which compare refuses: shard 1 again, as if run on the other machine.)
    other = tmp_path / "shard-1-elsewhere"
    shutil.copytree(dirs[0], other)
    (other / "environment.json").write_text(json.dumps(env))
    rehash(other)
    res = jitbench("compare", str(dirs[0]), str(other), out=False)
    assert res.rc == 0, res.stderr
    assert "ran in different environments" in res.stdout and "Another CPU" in res.stdout
    assert "different environments" in res.stderr
    assert "is a merged run whose shards ran in 2 environments" in jitbench("compare", str(dirs[0]), str(merged),
                                                                           out=False).stdout
    same = jitbench("compare", str(dirs[0]), str(dirs[0]), out=False)
    assert "different environments" not in same.stdout + same.stderr


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_shard_killed_mid_run_is_resumed(tmp_path, fake_env, sig):
    """The shard is stopped while its second case runs (SIGTERM, as Slurm
    sends at a time limit, or SIGKILL, a lost node); --resume keeps the case it
    finished and measures the rest."""
    suite = tmp_path / "s.toml"
    suite.write_text('[suite]\nname = "fake"\ncold_runs = 1\nwarm_iters = 2\n'
                     '[[matrix]]\nbackends = ["numpy", "numba", "jax_jit_cpu"]\nworkloads = ["mc_pi"]\n'
                     'sizes = [1000]\ndtypes = ["f64"]\n')
    out = tmp_path / "shard"
    env = dict(os.environ, **fake_env(numba="slow"), FAKE_WORKER_SLEEP="30")
    proc = subprocess.Popen([str(JITBENCH), "run", "--suite", str(suite), "--shard", "1/1", "--out-dir", str(out),
                             "--quiet"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while not (out / "logs" / "numba_mc_pi_1000_f64").is_dir() and time.time() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)
    proc.send_signal(sig)
    proc.communicate(timeout=60)
    index = json.loads((out / "index.json").read_text())
    assert index["complete"] is False
    assert [c["case"] for c in index["cases"]][0] == "numpy_mc_pi_1000_f64"
    kept = (out / "cases" / "numpy_mc_pi_1000_f64.json").read_bytes()
    env_ok = dict(os.environ, **fake_env())
    res = subprocess.run([str(JITBENCH), "run", "--resume", str(out)], env=env_ok, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    index = json.loads((out / "index.json").read_text())
    validate(index, "jitbench.index.v5")
    assert index["complete"] is True and index["shard"]["index"] == 1
    assert [c["case"] for c in index["cases"]] == ["numpy_mc_pi_1000_f64", "numba_mc_pi_1000_f64",
                                                   "jax_jit_cpu_mc_pi_1000_f64"]
    assert all(c["status"] == "ok" for c in index["cases"])
    assert index["resumed"][-1]["kept"] == 1
    assert index["resumed"][-1]["remeasured"] == ["numba_mc_pi_1000_f64", "jax_jit_cpu_mc_pi_1000_f64"]
    assert subprocess.run([str(JITBENCH), "validate", str(out)], capture_output=True).returncode == 0
    again = subprocess.run([str(JITBENCH), "run", "--resume", str(out)], env=env_ok, capture_output=True, text=True)
    assert again.returncode == 0 and "nothing to resume" in again.stdout
    # The kept case is the one measured before the stop, untouched.
    assert (out / "cases" / "numpy_mc_pi_1000_f64.json").read_bytes() == kept
    bad = subprocess.run([str(JITBENCH), "run", "--resume", str(out), "--cold-runs", "2"], capture_output=True,
                         text=True)
    assert bad.returncode == 2 and "give it alone" in bad.stderr
