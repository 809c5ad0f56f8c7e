"""`jitbench measure TARGET`, the worker side (the shim writer,
worker/jitbench_worker/harness/target.py, and what a shim imports,
worker/jitbench_worker/target.py):
the user's own jitted or plain function found, its framework detected, its eager
baseline derived, and the generated workload file run by the real worker on the
JIT backend and on its baseline, exactly as jitbench spawns it. No C++ needed."""

import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "worker"))

from jitbench_worker import target as T  # noqa: E402
from jitbench_worker.harness import target as H  # noqa: E402  (the shim writer, harness side)

pytestmark = pytest.mark.quick

ENV = dict(os.environ, PYTHONPATH=str(ROOT / "worker"))
HAVE_TF = importlib.util.find_spec("tensorflow") is not None

JAX_MODULE = """
import numpy as np
import jax
import jax.numpy as jnp

def _step(w, x):
    return jnp.tanh(x @ w).sum(axis=0)

step = jax.jit(_step)

def _plus_one(x):
    return x + 1.0

def _same(x):
    return x * 1.0

# A JIT whose output differs from its eager function's: its __wrapped__ is another function.
wrong = jax.jit(_plus_one)
wrong.__wrapped__ = _same

def make_inputs():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((8, 4)).astype(np.float32), rng.standard_normal((16, 8)).astype(np.float32))

def one_input():
    return (np.linspace(0.0, 1.0, 32, dtype=np.float32),)
"""

NUMBA_MODULE = """
import numpy as np
import numba

@numba.njit
def ema(x, a):
    out = np.empty_like(x)
    acc = x[0]
    for i in range(x.shape[0]):
        acc = a * x[i] + (1 - a) * acc
        out[i] = acc
    return out

def make_inputs():
    return (np.random.default_rng(0).standard_normal(500), 0.25)

def shape_ok(out, inputs):
    return out.shape == inputs[0].shape

def always_wrong(out, inputs):
    return False
"""

TF_MODULE = """
import numpy as np
import tensorflow as tf

@tf.function(jit_compile=True)
def soft(x):
    return tf.nn.softmax(x * 2.0, axis=-1)

def make_inputs():
    return (np.random.default_rng(0).standard_normal((4, 16)).astype(np.float32),)
"""

PLAIN_MODULE = """
import numpy as np
from helper import SCALE  # a sibling module: the file's directory is on sys.path

def norms(x):
    return {"rows": np.sqrt((x * x).sum(axis=1)) * SCALE, "mean": x.mean()}

def no_inputs_here(x):
    return x

def make_inputs():
    return (np.random.default_rng(1).standard_normal((6, 5)).astype(np.float32),)

NOT_A_FUNCTION = 3
f32_only = None
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


@pytest.fixture
def plain(tmp_path):
    write(tmp_path, "helper.py", "SCALE = 2.0\n")
    return write(tmp_path, "plainmod.py", PLAIN_MODULE)


def shim(target, *options, out, cwd=None):
    """python -m jitbench_worker.harness.target shim ...: (rc, the JSON line or None, stderr)."""
    p = subprocess.run([sys.executable, "-m", "jitbench_worker.harness.target", "shim", str(target), *options,
                        "--out", str(out)], capture_output=True, text=True, env=ENV, cwd=cwd, timeout=300)
    return p.returncode, (json.loads(p.stdout) if p.returncode == 0 else None), p.stderr


def run_worker(shim_path, backend, dtype, mode="cold", cwd=None, policy="cold_cache", cache_dir=None,
               expect_ok=True):
    """The worker run as jitbench spawns it: its result message (every message, expect_ok=False)."""
    r, w = os.pipe()
    name = shim_path.stem
    argv = [sys.executable, "-m", "jitbench_worker", "run", "--fd", str(w), "--mode", mode, "--backend", backend,
            "--workload", name, "--workload-path", str(shim_path), "--n", "1", "--dtype", dtype, "--warm-iters", "2",
            "--cache-policy", policy]
    env = dict(ENV, JITBENCH_CACHE_DIR=str(cache_dir)) if cache_dir else ENV
    proc = subprocess.Popen(argv, pass_fds=(w,), env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    os.close(w)
    data = b""
    while chunk := os.read(r, 65536):
        data += chunk
    os.close(r)
    stderr = proc.communicate(timeout=300)[1].decode()
    messages = [json.loads(line) for line in data.decode().splitlines()]
    by_type = {m["type"]: m for m in messages}
    if not expect_ok:
        return messages
    assert "result" in by_type, (by_type.get("error") or by_type.get("skip"), stderr[-3000:])
    return by_type["result"]


def measured(tmp_path, path, name, *options):
    out = tmp_path / "inputs"
    out.mkdir(exist_ok=True)
    rc, meta, err = shim(f"{path}:{name}", *options, out=out)
    assert rc == 0, err
    return meta, pathlib_of(meta["shim"])


def pathlib_of(p):
    import pathlib

    return pathlib.Path(p)


# -- detection and the eager baseline ----------------------------------------------
@pytest.mark.heavy("jax, numba")
def test_jax_numba_and_plain_are_detected_and_their_eager_callables_derived(tmp_path, plain):
    jmod = T.load_file(str(write(tmp_path, "jaxmod.py", JAX_MODULE)))
    nmod = T.load_file(str(write(tmp_path, "numbamod.py", NUMBA_MODULE)))
    pmod = T.load_file(str(plain))
    d = T.detect(jmod.step)
    assert (d.framework, d.jitted, d.eager) == ("jax", jmod.step, jmod._step)
    d = T.detect(nmod.ema)
    assert (d.framework, d.jitted, d.eager) == ("numba", nmod.ema, nmod.ema.py_func)
    d = T.detect(pmod.norms)
    assert (d.framework, d.jitted, d.eager) == ("numpy", None, pmod.norms)


@pytest.mark.heavy("tensorflow")
@pytest.mark.skipif(not HAVE_TF, reason="tensorflow is not installed")
def test_a_tf_function_is_detected_and_its_python_function_is_the_eager_one(tmp_path):
    mod = T.load_file(str(write(tmp_path, "tfmod.py", TF_MODULE)))
    d = T.detect(mod.soft)
    assert (d.framework, d.jitted, d.eager) == ("tensorflow", mod.soft, mod.soft.python_function)


def test_torch_compile_is_detected_by_attribute_without_torch():
    """Stand-ins with what torch.compile leaves: a function's _torchdynamo_orig_callable,
    an OptimizedModule's _orig_mod (its class from a torch module)."""
    def original(x):
        return x

    def compiled(x):
        return x

    compiled._torchdynamo_orig_callable = original
    d = T.detect(compiled)
    assert (d.framework, d.jitted, d.eager) == ("torch", compiled, original)
    module_type = type("OptimizedModule", (), {"__module__": "torch._dynamo.eval_frame",
                                               "__call__": lambda self, x: x})
    wrapped = module_type()
    wrapped._orig_mod = original
    assert T.detect(wrapped).framework == "torch" and T.detect(wrapped).eager is original
    # The same attribute on an object of no torch module is not torch.compile's.
    other = type("Lookalike", (), {"__call__": lambda self, x: x})()
    other._orig_mod = original
    assert T.detect(other).framework == "numpy"


@pytest.mark.heavy("jax, numba (in a fresh interpreter)")
def test_detection_imports_no_framework(tmp_path, plain):
    """A plain function and a numba one: neither jax, tensorflow nor torch is imported by detecting them."""
    nm = write(tmp_path, "numbamod.py", NUMBA_MODULE)
    code = (f"import sys; sys.path.insert(0, {str(ROOT / 'worker')!r})\n"
            "from jitbench_worker import target as T\n"
            f"assert T.detect(T.resolve({str(plain) + ':norms'!r})).framework == 'numpy'\n"
            f"assert T.detect(T.resolve({str(nm) + ':ema'!r})).framework == 'numba'\n"
            "print(sorted(m for m in ('jax', 'tensorflow', 'torch') if m in sys.modules))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]"


# -- the generated workload, run by the worker on both backends -------------------
def ok_against_eager_f64(result, words):
    v = result["verify"]
    assert v["ok"] is True and result["verify_first"]["ok"] is True, v
    assert v["metric"] == "relative_error" and 0 <= v["error"] <= v["tolerance"]
    assert words in v["reference"] and v["reference"].endswith("float64"), v["reference"]


@pytest.mark.heavy("jax")
def test_a_jitted_jax_function_runs_on_jit_and_eager_and_is_verified(tmp_path):
    path = write(tmp_path, "jaxmod.py", JAX_MODULE)
    meta, shim_path = measured(tmp_path, path, "step")
    assert (meta["name"], meta["framework"], meta["backends"], meta["dtypes"]) == \
        ("step", "jax", ["jax_jit_cpu", "jax_eager_cpu", "jax_jit_gpu", "jax_eager_gpu"], ["f32"])
    assert meta["target_file"] == str(path.resolve())
    jit = run_worker(shim_path, "jax_jit_cpu", "f32")
    ok_against_eager_f64(jit, "un-jitted JAX function")
    assert jit["compiles"]["first_call_by_function"] == {"jit(_step)": 1}  # the user's own jit compiled
    eager = run_worker(shim_path, "jax_eager_cpu", "f32")
    ok_against_eager_f64(eager, "un-jitted JAX function")
    assert "jit(_step)" not in eager["compiles"]["first_call_by_function"]  # op by op: the __wrapped__ ran
    assert eager["verify"]["error"] > 0  # float32 against float64: the reference is not the output itself


@pytest.mark.heavy("numba")
def test_a_numba_function_runs_on_numba_and_its_py_func_on_numpy(tmp_path):
    meta, shim_path = measured(tmp_path, write(tmp_path, "numbamod.py", NUMBA_MODULE), "ema")
    assert (meta["framework"], meta["backends"], meta["dtypes"]) == ("numba", ["numba", "numpy"], ["f64"])
    jit = run_worker(shim_path, "numba", "f64")
    ok_against_eager_f64(jit, "py_func")
    assert jit["compiles"]["first_call_by_function"] == {"ema": 1}
    ok_against_eager_f64(run_worker(shim_path, "numpy", "f64"), "py_func")


@pytest.mark.heavy("numba")
def test_a_users_numba_dispatcher_follows_the_cases_cache_policy(tmp_path):
    """cache=True in the user's file writes nothing beside it in a cold run; under
    warm_cache a dispatcher caches in the case's directory and the next process loads it."""
    path = write(tmp_path, "cached.py", NUMBA_MODULE.replace("@numba.njit", "@numba.njit(cache=True)"))
    _, shim_path = measured(tmp_path, path, "ema")
    cold = run_worker(shim_path, "numba", "f64")
    assert cold["compiles"]["first_call"] == 1 and not list(tmp_path.rglob("*.nbi"))  # numba's cache index
    # A dispatcher without cache=True caches too under warm_cache, as jitbench's own njit does.
    _, shim_path = measured(tmp_path, write(tmp_path, "uncached.py", NUMBA_MODULE), "ema", "--name", "ema_u")
    cache = tmp_path / "case-cache"
    cache.mkdir()
    first = run_worker(shim_path, "numba", "f64", policy="warm_cache", cache_dir=cache)
    assert first["cache_events"]["misses"] == 1 and any(cache.rglob("*.nbi"))
    again = run_worker(shim_path, "numba", "f64", policy="warm_cache", cache_dir=cache)
    assert again["cache_events"]["hits"] == 1 and again["compiles"]["first_call"] == 0
    assert again["verify"]["ok"] is True


@pytest.mark.heavy("tensorflow")
@pytest.mark.skipif(not HAVE_TF, reason="tensorflow is not installed")
def test_a_tf_function_runs_on_tensorflow_and_eagerly(tmp_path):
    meta, shim_path = measured(tmp_path, write(tmp_path, "tfmod.py", TF_MODULE), "soft")
    assert meta["backends"] == ["tensorflow", "tensorflow_eager", "tensorflow_gpu", "tensorflow_eager_gpu"]
    jit = run_worker(shim_path, "tensorflow", "f32")
    ok_against_eager_f64(jit, "python_function")
    assert jit["compiles"]["first_call_by_function"].get("(tf.function traces)") == 1
    eager = run_worker(shim_path, "tensorflow_eager", "f32")
    ok_against_eager_f64(eager, "python_function")
    assert "(tf.function traces)" not in (eager["compiles"]["first_call_by_function"] or {})


def test_a_plain_function_runs_on_numpy_with_its_sibling_import(tmp_path, plain):
    meta, shim_path = measured(tmp_path, plain, "norms")
    assert (meta["framework"], meta["backends"]) == ("numpy", ["numpy"])
    result = run_worker(shim_path, "numpy", "f32", cwd=tmp_path / "inputs")
    ok_against_eager_f64(result, "the function itself")
    assert result["workload"]["target"] == "plainmod.py:norms"


def test_a_measured_process_imports_nothing_of_the_harness_side(tmp_path, monkeypatch):
    """The shim is written by jitbench_worker.harness.target; the worker process
    that measures it imports jitbench_worker.target and nothing of harness/
    (the modules it holds at its exit, written by the user's own module)."""
    seen = tmp_path / "modules.txt"
    path = write(tmp_path, "seen.py", f"""
        import atexit, sys
        import numpy as np

        def norms(x):
            return np.sqrt((x * x).sum(axis=1))

        def make_inputs():
            return (np.ones((3, 2), dtype=np.float32),)

        atexit.register(lambda: open({str(seen)!r}, "w").write("\\n".join(sorted(sys.modules))))
        """)
    meta, shim_path = measured(tmp_path, path, "norms")
    assert "jitbench_worker.harness" in seen.read_text().split()  # the shim writer's own process (its __main__)
    seen.unlink()
    monkeypatch.setitem(ENV, "JITBENCH_WORKER_CLEAN_EXIT", "1")  # exit through atexit
    run_worker(shim_path, "numpy", "f32")
    modules = seen.read_text().split()
    assert {"jitbench_worker.runner", "jitbench_worker.target", "seen"} <= set(modules)
    assert [m for m in modules if m.startswith("jitbench_worker.harness")] == []


def record_by_import(shim_path):
    """The shim's record as `catalog --workload-file` prints it: the shim imported, and through it the target."""
    p = subprocess.run([sys.executable, "-m", "jitbench_worker.catalog", "--workload-file", shim_path.stem,
                        str(shim_path)], capture_output=True, text=True, env=ENV, timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_the_shims_workload_record_is_the_one_its_import_gives(tmp_path, plain):
    """measure in one hop: the record handed over with the shim is the record
    jitbench would otherwise import the shim again for, field for field."""
    meta, shim_path = measured(tmp_path, plain, "norms")
    assert meta["workload"] == record_by_import(shim_path)


@pytest.mark.heavy("numba")
def test_a_numba_shims_record_names_both_its_implementations_as_its_import_does(tmp_path):
    meta, shim_path = measured(tmp_path, write(tmp_path, "numbamod.py", NUMBA_MODULE), "ema")
    assert meta["workload"]["frameworks"] == ["numba", "numpy"]
    assert meta["workload"] == record_by_import(shim_path)


def test_the_shim_loads_the_copies_it_keeps_pinned_by_sha256(tmp_path, plain):
    """--keep DIR: the user's files are copied into DIR (relative to the shim) and
    the shim loads those copies, the original's directory serving sibling imports;
    a copy changed afterwards is refused, never measured."""
    inputs = tmp_path / "inputs" / "workloads"
    inputs.mkdir(parents=True)
    rc, meta, err = shim(f"{plain}:norms", "--keep", "../targets", out=inputs)
    assert rc == 0, err
    copy = tmp_path / "inputs" / "targets" / "plainmod.py"
    assert [(k["source"], k["file"]) for k in meta["kept"]] == [(str(plain.resolve()), "plainmod.py")]
    assert os.path.realpath(meta["kept"][0]["copy"]) == str(copy.resolve())
    assert copy.read_text() == plain.read_text()
    assert "'where': '../targets/plainmod.py'" in pathlib_of(meta["shim"]).read_text()
    # The original changes: the copy is what runs.
    plain.write_text(plain.read_text().replace("(6, 5)", "(7, 5)"))
    got = run_worker(pathlib_of(meta["shim"]), "numpy", "f32", cwd="/")
    assert got["verify"]["ok"] is True and got["workload"]["inputs"] == ["float32[6,5]"], got
    copy.write_text(plain.read_text())
    out = json.dumps(run_worker(pathlib_of(meta["shim"]), "numpy", "f32", cwd="/", expect_ok=False))
    assert "not the file this workload was generated from" in out, out


def test_kept_copies_never_stand_in_for_the_users_own_modules(tmp_path):
    """The target imports its sibling data.py and reads scale.txt beside itself; the
    inputs come from another directory's data.py, which imports its own sibling.
    Kept as copies, each still finds its own neighbours, never the other's copy."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    write(a, "data.py", "SCALE = 2.0\n")
    write(a, "scale.txt", "3.0\n")
    write(a, "y.py", """
        import os
        import numpy as np
        import data

        FACTOR = float(open(os.path.join(os.path.dirname(__file__), "scale.txt")).read())


        def f(x):
            return np.asarray(x) * data.SCALE * FACTOR
        """)
    write(b, "helper.py", "N = 4\n")
    write(b, "data.py", "import numpy as np\nimport helper\nSCALE = 1000.0\n\n\n"
                        "def make():\n    return (np.ones(helper.N, dtype=np.float32),)\n")
    out = tmp_path / "inputs" / "workloads"
    out.mkdir(parents=True)
    rc, meta, err = shim(f"{a / 'y.py'}:f", "--inputs", f"{b / 'data.py'}:make", "--keep", "../targets", out=out)
    assert rc == 0, err
    assert sorted(k["file"] for k in meta["kept"]) == ["data.py", "y.py"], meta["kept"]
    got = run_worker(pathlib_of(meta["shim"]), "numpy", "f32", cwd="/")
    assert got["verify"]["ok"] is True and got["workload"]["inputs"] == ["float32[4]"], got
    # The output itself: SCALE from a/data.py (2), FACTOR from a/scale.txt (3).
    assert got["verify"]["error"] == 0.0
    text = pathlib_of(meta["shim"]).read_text()
    assert str(a) in text and str(b) in text  # both originals' directories serve their imports


def test_a_function_that_changes_its_inputs_is_told_so(tmp_path):
    path = write(tmp_path, "mut.py", """
        import numpy as np


        def make_inputs():
            return (np.ones(4, dtype=np.float32),)


        def f(x):
            x += 1.0
            return x * 2
        """)
    meta, shim_path = measured(tmp_path, path, "f")
    got = run_worker(shim_path, "numpy", "f32", expect_ok=False)
    said = json.dumps(got)
    assert "changed its inputs in place" in said and "--check" in said, said[:2000]


def test_a_check_whose_ok_is_no_bool_fails(tmp_path, plain):
    write(tmp_path, "checks.py", "def ok_str(out, inputs):\n    return {'ok': 'false'}\n")
    meta, shim_path = measured(tmp_path, plain, "norms", "--check", f"{tmp_path / 'checks.py'}:ok_str")
    said = json.dumps(run_worker(shim_path, "numpy", "f32", expect_ok=False))
    assert "returned ok='false': it must be True or False" in said, said[:2000]


def test_a_hidden_file_is_kept_under_a_plain_name(tmp_path):
    hidden = write(tmp_path, ".hidden.py", "import numpy as np\n\n\ndef make_inputs():\n"
                                          "    return (np.ones(3),)\n\n\ndef f(x):\n    return x * 2\n")
    out = tmp_path / "inputs" / "workloads"
    out.mkdir(parents=True)
    rc, meta, err = shim(f"{hidden}:f", "--keep", "../targets", out=out)
    assert rc == 0 and [k["file"] for k in meta["kept"]] == ["hidden.py"], (err, meta)


def test_a_file_that_is_not_python_is_one_line(tmp_path):
    write(tmp_path, "noext", "def f(x):\n    return x\n")
    rc, meta, err = shim(f"{tmp_path / 'noext'}:f", out=tmp_path)
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "noext" in err, err


def test_a_package_module_nothing_else_pins_is_pinned_by_its_file(tmp_path):
    pkg = tmp_path / "mypk"
    pkg.mkdir()
    write(pkg, "__init__.py", "")
    write(pkg, "mod.py", "import numpy as np\n\n\ndef make():\n    return (np.ones(3),)\n\n\n"
                         "def f(x):\n    return x * 2\n")
    rc, meta, err = shim("mypk.mod:f", "--inputs", "mypk.mod:make", out=tmp_path, cwd=tmp_path)
    assert rc == 0 and meta["version"] is None and meta["commit"] is None, (err, meta)
    shim_path = pathlib_of(meta["shim"])
    assert run_worker(shim_path, "numpy", "f64", cwd=tmp_path)["verify"]["ok"] is True
    (pkg / "mod.py").write_text((pkg / "mod.py").read_text().replace("x * 2", "x * 3"))
    said = json.dumps(run_worker(shim_path, "numpy", "f64", cwd=tmp_path, expect_ok=False))
    assert "is not the code this workload was generated from" in said, said[:2000]


def test_keep_must_be_relative_to_the_shim(tmp_path, plain):
    rc, meta, err = shim(f"{plain}:norms", "--keep", str(tmp_path), out=tmp_path)
    assert rc == 2 and "relative to the shim" in err and len(err.strip().splitlines()) == 1, err


def test_a_package_module_target_records_its_distribution(tmp_path):
    write(tmp_path, "vecs.py", "import numpy as np\n\ndef make():\n    return (np.arange(6.0).reshape(2, 3),)\n")
    rc, meta, err = shim("numpy.linalg:norm", "--inputs", f"{tmp_path / 'vecs.py'}:make", out=tmp_path)
    assert rc == 0, err
    import numpy

    assert (meta["distribution"], meta["version"]) == ("numpy", numpy.__version__)
    assert meta["target_file"] is None and meta["files"] == [str((tmp_path / "vecs.py").resolve())]
    assert (meta["name"], meta["dtypes"]) == ("norm", ["f64"])
    ok_against_eager_f64(run_worker(pathlib_of(meta["shim"]), "numpy", "f64"), "the function itself")
    # Where the recorded version is not the one installed (a replica elsewhere), the case says what to install.
    shim_file = pathlib_of(meta["shim"])
    shim_file.write_text(shim_file.read_text().replace(f"'version': '{numpy.__version__}'", "'version': '0.0.1'"))
    out = json.dumps(run_worker(shim_file, "numpy", "f64", expect_ok=False))
    assert "was measured with numpy 0.0.1" in out and "install numpy==0.0.1" in out, out


def test_inputs_and_check_from_another_file_are_listed_once_and_a_checkout_gives_its_commit(tmp_path):
    side = write(tmp_path, "side.py", "def make():\n    return (3, 1e-7)\n\ndef check(out, inputs):\n    return True\n")
    text, meta = H.plan(f"{ROOT / 'worker/jitbench_worker/verify.py'}:gamma", inputs=f"{side}:make",
                        check=f"{side}:check")
    assert meta["files"] == [str(ROOT / "worker/jitbench_worker/verify.py"), str(side.resolve())]
    assert f"'check': '{side.resolve()}:check'" in text and f"'inputs': '{side.resolve()}:make'" in text
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    assert meta["commit"] == head.strip() and meta["distribution"] is None
    assert (meta["dtypes"], meta["framework"]) == (["f32"], "numpy")  # no floating array: f32


# -- what must fail ------------------------------------------------------------------
@pytest.mark.heavy("numba")
def test_a_check_that_says_no_fails_the_case(tmp_path):
    path = write(tmp_path, "numbamod.py", NUMBA_MODULE)
    _, good = measured(tmp_path, path, "ema", "--check", "shape_ok", "--name", "ema_good")
    v = run_worker(good, "numba", "f64")["verify"]
    assert v["ok"] is True and v["reference"] == "the user's check numbamod.py:shape_ok"
    _, bad = measured(tmp_path, path, "ema", "--check", f"{path}:always_wrong", "--name", "ema_bad")
    v = run_worker(bad, "numba", "f64")["verify"]
    assert v["ok"] is False and "always_wrong returned False" in v["message"]


@pytest.mark.heavy("jax")
def test_a_jit_whose_output_differs_from_eager_fails_verification(tmp_path):
    path = write(tmp_path, "jaxmod.py", JAX_MODULE)
    _, shim_path = measured(tmp_path, path, "wrong", "--inputs", "one_input")
    v = run_worker(shim_path, "jax_jit_cpu", "f32")["verify"]
    assert v["ok"] is False and v["error"] > v["tolerance"], v
    assert "exceeds" in v["message"] and "un-jitted JAX function" in v["message"]
    assert run_worker(shim_path, "jax_eager_cpu", "f32")["verify"]["ok"] is True


def test_a_lambda_or_a_closure_is_refused_with_one_line_saying_why():
    with pytest.raises(ValueError, match=r"a lambda cannot be measured: a fresh process cannot import it"):
        T.resolve(lambda x: x)

    def outer():
        def inner(x):
            return x
        return inner

    with pytest.raises(ValueError, match=r"closure \(defined inside a function\): a fresh process cannot import"):
        T.resolve(outer())
    assert T.resolve(T.detect) is T.detect  # a module-level function given by reference is found by name
    assert T.target_of(T.detect) == "jitbench_worker.target:detect"


def test_a_function_from_a_file_loaded_by_path_is_found_by_its_path(tmp_path, plain):
    fn = T.resolve(f"{plain}:norms")
    assert T.target_of(fn) == f"{plain.resolve()}:norms"
    assert T.resolve(fn) is fn


@pytest.mark.parametrize("target,expect", [
    ("plainmod.norms", "must be path/to/file.py:name or package.module:name"),
    ("missing.py:f", "file not found: missing.py"),
    ("plainmod.py:absent", "plainmod has no attribute 'absent'"),
    ("plainmod.py:NOT_A_FUNCTION", "is a int, not callable"),
    ("no_such_pkg_xyz.mod:f", "cannot import module 'no_such_pkg_xyz.mod'"),
])
def test_a_bad_target_exits_2_with_one_line_naming_the_fix(tmp_path, plain, target, expect):
    rc, _, err = shim(target, out=tmp_path, cwd=tmp_path)
    assert rc == 2
    assert len(err.strip().splitlines()) == 1 and expect in err, err


@pytest.mark.parametrize("options,expect", [
    (["--name", "matmul"], "--name 'matmul' is a built-in workload's"),
    (["--name", "My-Step"], "--name 'My-Step': a workload's name is lower-case letters"),
])
def test_a_bad_name_exits_2_with_one_line(tmp_path, plain, options, expect):
    rc, _, err = shim(f"{plain}:norms", *options, out=tmp_path)
    assert rc == 2 and len(err.strip().splitlines()) == 1 and expect in err, err


def test_the_default_name_steps_aside_from_a_built_in_workload(tmp_path):
    write(tmp_path, "mm.py", "import numpy as np\n\ndef matmul(a):\n    return a @ a\n\n"
                             "def make_inputs():\n    return (np.eye(3),)\n")
    rc, meta, err = shim(f"{tmp_path / 'mm.py'}:matmul", out=tmp_path)
    assert rc == 0, err
    assert meta["name"] == "matmul_fn" and pathlib_of(meta["shim"]).name == "matmul_fn.py"


def test_without_make_inputs_the_error_names_the_inputs_option(tmp_path):
    write(tmp_path, "bare.py", "def f(x):\n    return x\n")
    rc, _, err = shim(f"{tmp_path / 'bare.py'}:f", out=tmp_path)
    assert rc == 2 and len(err.strip().splitlines()) == 1
    assert "no module-level make_inputs: give --inputs module:factory" in err


def test_the_reference_falls_back_to_the_inputs_as_given_and_says_so(tmp_path):
    """An eager function that refuses float64 is verified on the inputs as given."""
    write(tmp_path, "picky.py", """
import numpy as np

def f(x):
    assert x.dtype == np.float32, "float32 only"
    return x * 2

def make_inputs():
    return (np.ones(4, np.float32),)
""")
    spec = {"target": "picky.py:f", "where": str(tmp_path / "picky.py"), "inputs": "make_inputs", "check": None,
            "search_path": [], "framework": "numpy"}
    m = T.Measured(spec)
    inputs = m.make_inputs(1, "f32", 0)
    v, info = m.check(m.detected().eager(*inputs), inputs, 1, "f32", 0)
    assert v["ok"] is True
    assert v["reference"] == ("the function itself, on the inputs as given (with float64 copies it raised "
                              "AssertionError: float32 only)")
    v, _ = m.check(inputs[0] * 3, inputs, 1, "f32", 0)
    assert v["ok"] is False


def test_an_output_of_another_structure_fails_with_its_path():
    import math

    import numpy as np

    a, b = np.array([1.0, 2.0]), np.array([1.0, 2.0, 3.0])
    assert T.error({"a": a, "b": 1.0}, {"a": a, "b": 1.0}) == (0.0, "['a']")
    assert T.error({"a": a, "b": 1.5}, {"a": a, "b": 1.0}) == (0.5, "['b']")
    with pytest.raises(T.Mismatch, match=r"\['a'\]: shape \(3,\), expected \(2,\)"):
        T.error({"a": b}, {"a": a})
    with pytest.raises(T.Mismatch, match="structure"):
        T.error((a, a), (a,))
    assert math.isnan(T.error((float("nan"),), (1.0,))[0])
    assert T.error((np.array([np.nan, 1.0]),), (np.array([np.nan, 1.0]),))[0] == 0.0  # NaN where the reference has it


def test_one_wrong_element_among_many_is_not_averaged_away():
    want = np.ones(1_000_000)
    got = want.copy()
    got[17] = 2.0  # 100% off, one element in a million: a 2-norm error of 1e-3 alone
    assert T.leaf_error(got, want) >= 1.0
    assert T.leaf_error(want * (1 + 1e-7), want) < 1e-6


def test_integer_leaves_must_be_equal_and_a_reference_of_nans_verifies_nothing():
    with pytest.raises(T.Mismatch):
        T.leaf_error(np.array([1, 2, 4]), np.array([1, 2, 3]))
    with pytest.raises(T.Mismatch):
        T.leaf_error(np.array([True, False]), np.array([True, True]))
    assert T.leaf_error(np.array([1, 2, 3]), np.array([1, 2, 3])) == 0.0
    with pytest.raises(T.Mismatch, match="no finite value"):
        T.leaf_error(np.full(4, np.nan), np.full(4, np.nan))


def test_a_numpy_bool_from_the_users_check_is_a_bool_and_the_check_cannot_rename_the_reference():
    m = T.Measured({"target": "m.py:f", "check": "c", "framework": "numpy", "where": "m.py"})
    m._cache["check"] = lambda out, inputs: np.bool_(True)
    assert m._user_check(None, ())["ok"] is True
    m._cache["check"] = lambda out, inputs: (np.arange(3) == np.arange(3)).all()
    assert m._user_check(None, ())["ok"] is True
    m._cache["check"] = lambda out, inputs: {"ok": True, "reference": "a float64 oracle"}
    assert m._user_check(None, ())["reference"].startswith("the user's check")
