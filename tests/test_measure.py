"""`jitbench measure TARGET`: the user's own function, no contract file. The
framework is detected from the object, the eager baseline derived from it,
both measured in fresh processes as built-in cases are, the JIT's output
verified against the eager function in float64, break-even computed; the
out dir is an ordinary run that `--resume` finishes from its own copy."""

import json
import re
import signal
import subprocess
import sys
import time

import pytest

from conftest import JITBENCH

pytestmark = pytest.mark.quick

QUICK = ("--cold-runs", "2", "--warm-runs", "1", "--warm-iters", "3")

MODULE = '''
import numpy as np


def make_inputs():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((32, 32)).astype(np.float32), rng.standard_normal((16, 32)).astype(np.float32))


def _jax():
    import jax
    import jax.numpy as jnp

    @jax.jit
    def step(w, x):
        return jnp.tanh(x @ w).sum(axis=0)
    return step


def plain(w, x):
    return np.tanh(x @ w).sum(axis=0)


def wrong_check(out, inputs):
    return False


WIDTH = 32
'''


def user_module(tmp_path, extra="", jax=True):
    """The user's module; with jax=False it never imports JAX (the quick tier's tests)."""
    path = tmp_path / "mine.py"
    path.write_text(MODULE + ("\nstep = _jax()\n" if jax else "") + extra)
    return path


@pytest.mark.heavy("jax")
def test_a_jitted_jax_function_is_measured_against_its_un_jitted_self(jitbench, tmp_path):
    mine = user_module(tmp_path)
    res = jitbench("measure", f"{mine}:step", *QUICK, "--out-dir", str(tmp_path / "out"), out=False)
    assert res.rc == 0, res.stderr
    out = tmp_path / "out"
    index = json.loads((out / "index.json").read_text())
    assert sorted(c["case"] for c in index["cases"]) == ["jax_eager_cpu_step_1_f32", "jax_jit_cpu_step_1_f32"]
    assert index["suite"]["name"] == "step" and index["command"][1] == "measure"
    assert all(c["status"] == "ok" for c in index["cases"]), index["cases"]
    jit = json.loads((out / "cases" / "jax_jit_cpu_step_1_f32.json").read_text())
    assert jit["verification"]["ok"] and "un-jitted JAX function" in jit["verification"]["reference"]
    rows = json.loads((out / "analysis.json").read_text())["break_even"]
    assert [(r["jit_case"], r["eager_case"]) for r in rows] == [("jax_jit_cpu_step_1_f32", "jax_eager_cpu_step_1_f32")]
    assert (out / "inputs" / "workloads" / "step.py").is_file()  # the workload file, kept like a user's
    assert (out / "inputs" / "targets" / "mine.py").read_text() == mine.read_text()  # and the user's own
    # summary.md and the report say what each case was verified against: the JIT against its un-jitted self.
    summary = (out / "summary.md").read_text()
    verification = summary.split("\n## Verification\n")[1].split("\n## ")[0]  # a long cell is a note below its table
    row = next(l for l in verification.splitlines() if l.startswith("| `step` with jax.jit |"))
    assert "un-jitted" in verification and "(`relative_error`)" in verification, verification
    assert "6 of 6" in row, row  # 2 cold runs and the warm process, each its first call and its last
    assert jitbench("report", str(out), out=False).rc == 0
    report = (out / "report" / "report.md").read_text()
    assert "## Verification" in report and "un-jitted JAX function" in report, report[:2000]


@pytest.mark.heavy("numba")
def test_a_numba_function_is_measured_against_its_py_func_on_numpy(jitbench, tmp_path):
    mine = user_module(tmp_path, "\n\nimport numba\n\n\n@numba.njit\ndef nsum(w, x):\n"
                                 "    return np.tanh(x @ w).sum(axis=0)\n")
    res = jitbench("measure", f"{mine}:nsum", *QUICK, "--out-dir", str(tmp_path / "out"), out=False)
    assert res.rc == 0, res.stderr
    out = tmp_path / "out"
    index = json.loads((out / "index.json").read_text())
    assert sorted(c["case"] for c in index["cases"]) == ["numba_nsum_1_f32", "numpy_nsum_1_f32"]
    case = json.loads((out / "cases" / "numba_nsum_1_f32.json").read_text())
    assert case["status"] == "ok" and "py_func" in case["verification"]["reference"], case["verification"]
    rows = json.loads((out / "analysis.json").read_text())["break_even"]
    assert [(r["jit_case"], r["eager_case"]) for r in rows] == [("numba_nsum_1_f32", "numpy_nsum_1_f32")]


@pytest.mark.heavy("jax: the user's module imports it beside the plain function")
def test_a_plain_numpy_function_runs_on_numpy_alone(jitbench, tmp_path):
    mine = user_module(tmp_path)
    res = jitbench("measure", f"{mine}:plain", *QUICK, "--out-dir", str(tmp_path / "out"), out=False)
    assert res.rc == 0, res.stderr
    index = json.loads((tmp_path / "out" / "index.json").read_text())
    assert [c["case"] for c in index["cases"]] == ["numpy_plain_1_f32"]


def test_a_wrong_check_fails_the_case(jitbench, tmp_path):
    mine = user_module(tmp_path, jax=False)
    res = jitbench("measure", f"{mine}:plain", "--check", f"{mine}:wrong_check", *QUICK,
                   "--out-dir", str(tmp_path / "out"), out=False)
    assert res.rc == 2
    case = json.loads((tmp_path / "out" / "cases" / "numpy_plain_1_f32.json").read_text())
    assert (case["status"], case["reason"]) == ("failed", "incorrect_result"), (case["status"], case["reason"])
    summary = (tmp_path / "out" / "summary.md").read_text()
    verification = summary.split("\n## Verification\n")[1].split("\n## ")[0]  # a long cell is a note below its table
    row = next(l for l in verification.splitlines() if l.startswith("| `plain` (no JIT) |"))
    assert "the user's check mine.py:wrong_check (`user_check`)" in verification, verification
    assert re.search(r"\| not reported \| 0 of [1-9]", row), row


def test_measure_imports_the_users_code_once_for_the_shim_and_never_again_for_its_record(jitbench, tmp_path):
    """`measure` in one hop: the shim's workload record comes back with the
    shim, so no second Python imports the shim (and through it the user's
    module) only to print that record (`catalog --workload-file`)."""
    mine = user_module(tmp_path, jax=False)
    starts = tmp_path / "starts.log"
    python = tmp_path / "python"  # the interpreter jitbench starts, logging how it is started
    python.write_text(f'#!/bin/sh\necho "$@" >> "{starts}"\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    res = jitbench("measure", f"{mine}:plain", *QUICK, "--python", str(python), "--out-dir", str(tmp_path / "out"),
                   out=False)
    assert res.rc == 0, res.stderr
    lines = starts.read_text().splitlines()
    assert sum("jitbench_worker.harness.target shim" in line for line in lines) == 1, lines
    assert not [line for line in lines if "--workload-file" in line], lines
    index = json.loads((tmp_path / "out" / "index.json").read_text())
    assert [c["case"] for c in index["cases"]] == ["numpy_plain_1_f32"]  # planned from the record handed over


def test_a_function_named_like_a_built_in_workload_keeps_its_name_where_people_read(jitbench, tmp_path):
    """Its workload id gets "_fn" (case ids stay stable: compare and site histories key on them); the
    header, the tables and the case file show the function as the user named it."""
    mine = tmp_path / "mine.py"
    mine.write_text(MODULE + "\n\ndef mc_pi(w, x):\n    return plain(w, x)\n")
    res = jitbench("measure", f"{mine}:mc_pi", *QUICK, "--out-dir", str(tmp_path / "out"), out=False)
    assert res.rc == 0, res.stderr
    out = tmp_path / "out"
    index = json.loads((out / "index.json").read_text())
    assert [c["case"] for c in index["cases"]] == ["numpy_mc_pi_fn_1_f32"]
    case = json.loads((out / "cases" / "numpy_mc_pi_fn_1_f32.json").read_text())
    assert case["measured"] == {"function": "mc_pi", "source": "mine.py", "label": "mc_pi (no JIT)"}
    summary = (out / "summary.md").read_text()
    assert summary.startswith("# jitbench: function `mc_pi` from mine.py\n"), summary[:200]
    assert "\n## function `mc_pi` from mine.py\n" in summary
    assert "| `mc_pi` (no JIT) |" in summary and "mc_pi_fn" not in summary.split("\nCommand:")[0]
    assert summary.count("\n## How to read\n") == 1


def test_a_target_that_is_no_function_is_one_line_and_nothing_is_run(jitbench, tmp_path):
    mine = user_module(tmp_path, jax=False)
    for target, says in ((f"{mine}:WIDTH", "WIDTH"), (f"{mine}:nosuch", "nosuch"), (str(mine), "':'"),
                         (f"{tmp_path}/absent.py:f", "absent.py")):
        res = jitbench("measure", target, "--out-dir", str(tmp_path / "out"), out=False)
        assert res.rc == 2, res.stdout
        lines = [l for l in res.stderr.splitlines() if l.strip()]
        assert len(lines) == 1 and lines[0].startswith("jitbench: error: measure") and says in lines[0], res.stderr
        assert not (tmp_path / "out").exists()


def test_resume_measures_the_kept_copy_of_the_code_it_started_with(tmp_path):
    """A measure run keeps the user's file under inputs/targets/ (listed in the
    index with its sha256) and its workload loads that copy: --resume finishes
    the run with the code it started with though the original was changed, and
    a kept copy changed since is refused before anything is measured."""
    marker = tmp_path / "slow-while-this-exists"
    marker.touch()
    mine = user_module(tmp_path, f"\n\ndef slow(w, x):\n    import os, time\n    while os.path.exists({str(marker)!r}):"
                                 "\n        time.sleep(0.2)\n    return plain(w, x)\n", jax=False)
    out = tmp_path / "out"
    proc = subprocess.Popen([str(JITBENCH), "measure", f"{mine}:slow", *QUICK, "--out-dir", str(out), "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 120
    while not (out / "logs" / "numpy_slow_1_f32").is_dir() and time.time() < deadline:
        time.sleep(0.1)
    time.sleep(1)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    marker.unlink()
    index = json.loads((out / "index.json").read_text())
    assert index["complete"] is False and index["command"][1] == "measure"
    kept = [i for i in index["inputs"] if i["kind"] == "target"]
    assert [(k["source"], k["path"]) for k in kept] == [(str(mine.resolve()), "inputs/targets/mine.py")], kept
    original = mine.read_text()
    assert (out / "inputs" / "targets" / "mine.py").read_text() == original
    mine.write_text("raise SystemExit('the original was changed')\n")
    copy = out / "inputs" / "targets" / "mine.py"
    # A kept copy changed since is refused, one line, nothing measured.
    copy.write_text(original + "\n# changed\n")
    before = {p.name: p.read_bytes() for p in (out / "cases").iterdir()}
    res = subprocess.run([str(JITBENCH), "run", "--resume", str(out)], capture_output=True, text=True, timeout=300)
    assert res.returncode != 0 and "inputs/targets/mine.py" in res.stderr and "sha256" in res.stderr, res.stderr
    assert len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert {p.name: p.read_bytes() for p in (out / "cases").iterdir()} == before
    copy.write_text(original)
    res = subprocess.run([str(JITBENCH), "run", "--resume", str(out)], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert json.loads((out / "index.json").read_text())["resumed"], res.stderr
    case = json.loads((out / "cases" / "numpy_slow_1_f32.json").read_text())
    assert case["status"] == "ok", (case["status"], case.get("detail"))
    assert case["verification"]["ok"] is True


@pytest.mark.heavy("jax")
def test_a_static_argument_reaches_the_function_as_the_factory_gave_it(jitbench, tmp_path):
    mine = user_module(tmp_path, '''

import functools

import jax


@functools.partial(jax.jit, static_argnums=(1,))
def power(x, k):
    return x ** k


def power_inputs():
    return (np.linspace(0.5, 1.5, 8).astype(np.float32), 3)
''')
    res = jitbench("measure", f"{mine}:power", "--inputs", "power_inputs", *QUICK, "--out-dir", str(tmp_path / "out"),
                   out=False)
    assert res.rc == 0, res.stdout + res.stderr
    index = json.loads((tmp_path / "out" / "index.json").read_text())
    assert {c["case"]: c["status"] for c in index["cases"]} == {"jax_jit_cpu_power_1_f32": "ok",
                                                                 "jax_eager_cpu_power_1_f32": "ok"}
    # The cross-check says what it found: a module-level jax.jit function, with k passed as given every call.
    jit = (tmp_path / "out" / "cases" / "jax_jit_cpu_power_1_f32.json").read_text()
    assert "the jitted function power with argument 1 (int) passed as given" in jit, jit
