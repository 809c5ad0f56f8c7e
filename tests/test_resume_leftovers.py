"""`run --resume` lists only what it wrote itself (issue 49): a file in the
out dir that the index does not list is what a killed run left of a case it
was measuring, or it was put there. One of a case still to measure is removed
before that case is measured again; one of any other case is refused in one
line naming it, and nothing is added to the index."""

import json
import os
import subprocess

import pytest

from conftest import JITBENCH

pytestmark = pytest.mark.quick

SUITE = ('[suite]\nname = "leftovers"\ncold_runs = 1\nwarm_iters = 1\n'
         '[[matrix]]\nbackends = ["numpy", "jax_jit_cpu"]\nworkloads = ["mc_pi"]\nsizes = [1000]\ndtypes = ["f64"]\n')
CASES = ["numpy_mc_pi_1000_f64", "jax_jit_cpu_mc_pi_1000_f64"]


def run(args, env):
    return subprocess.run([str(JITBENCH), *args], env=dict(os.environ, **env), capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)


def killed_at_second_case(tmp_path, env, name="leftovers", *extra):
    """A run of SUITE (named name) killed outright (SIGKILL) as its second case begins: that case is planned,
    not recorded. Its out dir."""
    suite = tmp_path / f"{name}.toml"
    suite.write_text(SUITE.replace('name = "leftovers"', f'name = "{name}"'))
    out = tmp_path / "out"
    r = run(["run", "--suite", str(suite), *extra, "--out-dir", str(out), "--quiet"],
            dict(env, JITBENCH_TEST_KILL_AT="case_opened:2"))
    assert r.returncode == -9, (r.returncode, r.stderr)
    assert [c["case"] for c in json.loads((out / "index.json").read_text())["cases"]] == CASES[:1]
    return out


@pytest.fixture
def killed(tmp_path, fake_env):
    return killed_at_second_case(tmp_path, fake_env())


def listed(out):
    return {f["path"] for f in json.loads((out / "index.json").read_text())["files"]}


def test_files_of_a_case_not_in_the_plan_are_refused(killed, fake_env):
    (killed / "cases" / "zzz.json").write_text("{}")
    (killed / "logs" / "zzz").mkdir()
    (killed / "logs" / "zzz" / "a.log").write_text("hi")
    (killed / "references" / "zzz.pickle").write_text("x")
    r = run(["run", "--resume", str(killed), "--quiet"], fake_env())
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert len(r.stderr.strip().splitlines()) == 1 and "zzz" in r.stderr, r.stderr
    assert not any("zzz" in p for p in listed(killed))
    assert run(["validate", str(killed)], {}).returncode != 0


def test_a_file_planted_among_a_planned_cases_logs_is_never_listed(killed, fake_env):
    logs = killed / "logs" / CASES[1]
    logs.mkdir(parents=True, exist_ok=True)
    (logs / "evil.log").write_text("evil")
    r = run(["run", "--resume", str(killed), "--quiet"], fake_env())
    assert r.returncode == 0, r.stderr
    check = run(["validate", str(killed)], {})
    assert check.returncode == 0, check.stdout + check.stderr
    assert f"logs/{CASES[1]}/evil.log" not in listed(killed)
    assert not (logs / "evil.log").exists()
    assert [c["case"] for c in json.loads((killed / "index.json").read_text())["cases"]] == CASES
