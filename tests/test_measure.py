"""`jitbench measure TARGET`: the user's own function, no contract file. The
framework is detected from the object, the eager baseline derived from it,
both measured in fresh processes as built-in cases are, the JIT's output
verified against the eager function in float64, break-even computed; the
out dir is an ordinary run that `--resume` finishes from its own copy."""

import json
import signal
import subprocess
import time

from conftest import JITBENCH

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


def user_module(tmp_path, extra=""):
    path = tmp_path / "mine.py"
    path.write_text(MODULE + "\nstep = _jax()\n" + extra)
    return path


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


def test_a_plain_numpy_function_runs_on_numpy_alone(jitbench, tmp_path):
    mine = user_module(tmp_path)
    res = jitbench("measure", f"{mine}:plain", *QUICK, "--out-dir", str(tmp_path / "out"), out=False)
    assert res.rc == 0, res.stderr
    index = json.loads((tmp_path / "out" / "index.json").read_text())
    assert [c["case"] for c in index["cases"]] == ["numpy_plain_1_f32"]


def test_a_wrong_check_fails_the_case(jitbench, tmp_path):
    mine = user_module(tmp_path)
    res = jitbench("measure", f"{mine}:plain", "--check", f"{mine}:wrong_check", *QUICK,
                   "--out-dir", str(tmp_path / "out"), out=False)
    assert res.rc == 2
    case = json.loads((tmp_path / "out" / "cases" / "numpy_plain_1_f32.json").read_text())
    assert (case["status"], case["reason"]) == ("failed", "incorrect_result"), (case["status"], case["reason"])


def test_a_target_that_is_no_function_is_one_line_and_nothing_is_run(jitbench, tmp_path):
    mine = user_module(tmp_path)
    for target, says in ((f"{mine}:WIDTH", "WIDTH"), (f"{mine}:nosuch", "nosuch"), (str(mine), "':'"),
                         (f"{tmp_path}/absent.py:f", "absent.py")):
        res = jitbench("measure", target, "--out-dir", str(tmp_path / "out"), out=False)
        assert res.rc == 2, res.stdout
        lines = [l for l in res.stderr.splitlines() if l.strip()]
        assert len(lines) == 1 and lines[0].startswith("jitbench: error: measure") and says in lines[0], res.stderr
        assert not (tmp_path / "out").exists()


def test_resume_measures_the_code_it_started_with_or_refuses(tmp_path):
    """A measure run's index records the command as typed; --resume finishes it
    from the workload file it kept, and a target file changed since then is
    refused by each case it measures, never measured as if it were the same code."""
    mine = user_module(tmp_path, "\n\ndef slow(w, x):\n    import time\n    time.sleep(30)\n    return plain(w, x)\n")
    out = tmp_path / "out"
    proc = subprocess.Popen([str(JITBENCH), "measure", f"{mine}:slow", *QUICK, "--out-dir", str(out), "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 120
    while not (out / "logs" / "numpy_slow_1_f32").is_dir() and time.time() < deadline:
        time.sleep(0.1)
    time.sleep(1)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    index = json.loads((out / "index.json").read_text())
    assert index["complete"] is False and index["command"][1] == "measure"
    mine.write_text(mine.read_text().replace("time.sleep(30)", "time.sleep(0)") + "\n# changed\n")
    res = subprocess.run([str(JITBENCH), "run", "--resume", str(out)], capture_output=True, text=True, timeout=300)
    case = json.loads((out / "cases" / "numpy_slow_1_f32.json").read_text())
    assert json.loads((out / "index.json").read_text())["resumed"], res.stderr
    assert case["status"] == "failed", case["status"]
    assert "not the file this workload was generated from" in json.dumps(case), case.get("detail")


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
