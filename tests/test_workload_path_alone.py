"""`--workload-path FILE` alone plans that file's workload, not the default
suite: on every backend its IMPLEMENTATIONS' frameworks run on here (GPU
backends only where a GPU is seen), at its CATALOG's sizes and dtypes (else
one documented size in f32), labelled with the workload's name; `NAME_SIZE`
means the file's dtypes; a CATALOG plan out of range is one line naming it."""

import json

import pytest

pytestmark = pytest.mark.quick

EMA = '''
CATALOG = @CATALOG@


def make_inputs(n, dtype, seed):
    import numpy as np
    return (np.random.default_rng(seed).standard_normal(n).astype("float32" if dtype == "f32" else "float64"),)


def _reference(x):
    import numpy as np
    out, acc = np.empty(len(x)), 0.0
    for i, v in enumerate(np.asarray(x, np.float64)):
        acc = 0.9 * acc + 0.1 * v
        out[i] = acc
    return out


def check(out, inputs, n, dtype, seed):
    import numpy as np
    want = _reference(inputs[0])
    err = float(np.max(np.abs(np.asarray(out, np.float64) - want)))
    tol = 1e-4 if dtype == "f32" else 1e-10
    return ({"ok": err <= tol, "metric": "max_abs_error", "error": err, "tolerance": tol,
             "reference": "float64 loop"}, {})


def _numpy(adapter, n, dtype):
    import numpy as np

    def ema(x):
        out, acc = np.empty_like(x), x.dtype.type(0)
        for i in range(len(x)):
            acc = acc * x.dtype.type(0.9) + x.dtype.type(0.1) * x[i]
            out[i] = acc
        return out
    return ema


def _jax(adapter, n, dtype):
    import jax

    def ema(x):
        def step(acc, v):
            acc = 0.9 * acc + 0.1 * v
            return acc, acc
        return jax.lax.scan(step, x[0] * 0, x)[1]
    return adapter.jit(ema)


IMPLEMENTATIONS = {"numpy": _numpy, "numba": _numpy, "jax": _jax}
'''


def write_ema(tmp_path, catalog="{}"):
    path = tmp_path / "ema_scan.py"
    path.write_text(EMA.replace("@CATALOG@", catalog))
    return path


def planned(jitbench, *args):
    res = jitbench("plan", *args, "--json", out=False)
    assert res.rc == 0, res.stderr
    doc = json.loads(res.stdout)
    return doc, [c["case"] for c in doc["cases"]]


def test_the_file_alone_plans_its_own_workload_on_its_frameworks_backends(jitbench, tmp_path):
    doc, cases = planned(jitbench, "--workload-path", str(write_ema(tmp_path)))
    # numpy, numba (both numba backends), jax (jit and its eager baseline); no GPU backend on a machine without one;
    # one size (1024) in f32; nothing of the default suite.
    assert sorted(cases) == sorted(f"{b}_ema_scan_1024_f32" for b in
                                   ("numpy", "numba", "numba_parallel", "jax_jit_cpu", "jax_eager_cpu")), cases
    assert doc["suite"]["name"] == "ema_scan", doc["suite"]


def test_catalog_sizes_dtypes_and_backends_make_the_plan(jitbench, tmp_path):
    ema = write_ema(tmp_path, '{"sizes": [100, 300], "dtypes": ["f32", "f64"], "backends": ["numpy", "jax_jit_cpu"]}')
    _, cases = planned(jitbench, "--workload-path", str(ema))
    assert sorted(cases) == sorted(f"{b}_ema_scan_{n}_{d}" for b in ("numpy", "jax_jit_cpu") for n in (100, 300)
                                   for d in ("f32", "f64")), cases
    # NAME_SIZE without a dtype: the file's dtypes; the backends still the file's.
    _, cases = planned(jitbench, "--workload-path", str(ema), "--cases", "ema_scan_100")
    assert sorted(cases) == sorted(f"{b}_ema_scan_100_{d}" for b in ("numpy", "jax_jit_cpu") for d in ("f32", "f64"))
    # --cases with a dtype, on the backends its IMPLEMENTATIONS name (no --backends needed).
    _, cases = planned(jitbench, "--workload-path", str(write_ema(tmp_path)), "--cases", "ema_scan_50_f64")
    assert "jax_eager_cpu_ema_scan_50_f64" in cases and "numpy_ema_scan_50_f64" in cases, cases


def test_a_built_in_case_beside_the_file_keeps_the_default_suites_backends(jitbench, tmp_path):
    doc, cases = planned(jitbench, "--workload-path", str(write_ema(tmp_path)), "--cases",
                         "matmul_64_f32,ema_scan_64_f32")
    assert "numpy_matmul_64_f32" in cases and "numba_ema_scan_64_f32" in cases, cases
    assert doc["suite"]["name"] == "default"


@pytest.mark.parametrize("catalog, says", [
    ('{"sizes": [0]}', "CATALOG sizes: each must be a whole number"),
    ('{"sizes": []}', "CATALOG sizes is empty"),
    ('{"dtypes": ["f16"]}', "CATALOG dtypes: 'f16' is not one of f32, f64"),
    ('{"backends": ["jaxx"]}', "CATALOG backends names 'jaxx', which is not a backend"),
])
def test_a_catalog_plan_out_of_range_is_one_line_naming_it(jitbench, tmp_path, catalog, says):
    res = jitbench("plan", "--workload-path", str(write_ema(tmp_path, catalog)), out=False)
    assert res.rc == 2, res.stdout
    assert says in res.stderr, res.stderr


def test_a_file_whose_frameworks_no_backend_runs_names_the_fix(jitbench, tmp_path):
    path = write_ema(tmp_path)
    path.write_text(path.read_text().replace('IMPLEMENTATIONS = {"numpy": _numpy, "numba": _numpy, "jax": _jax}',
                                             'IMPLEMENTATIONS = {"mxnet": _numpy}'))
    res = jitbench("plan", "--workload-path", str(path), out=False)
    assert res.rc == 2
    line = res.stderr.strip().splitlines()[-1]
    assert "no backend here runs it: its IMPLEMENTATIONS name mxnet" in line and "list CATALOG backends" in line, line


def test_the_run_is_labelled_with_the_workload_and_measures_only_it(jitbench, tmp_path):
    ema = write_ema(tmp_path, '{"sizes": [64], "backends": ["numpy"]}')
    res = jitbench("run", "--workload-path", str(ema), "--cold-runs", "2", "--warm-runs", "1", "--warm-iters", "3")
    assert res.rc == 0, res.stderr
    index = res.index()
    assert [c["case"] for c in index["cases"]] == ["numpy_ema_scan_64_f32"]
    assert index["suite"]["name"] == "ema_scan", index["suite"]
    assert index["cases"][0]["status"] == "ok"
    assert (res.out / "summary.md").read_text().startswith("# jitbench: suite `ema_scan`\n")


def test_a_file_beside_a_suite_that_uses_it_nowhere_is_refused(jitbench, tmp_path):
    """--workload-path with --suite adds the file's workload to what the suite may
    name; a suite that names it nowhere would have ignored the file silently."""
    ema = write_ema(tmp_path)
    suite = tmp_path / "s.toml"
    suite.write_text('[suite]\nname = "other"\n\n[[matrix]]\nbackends = ["numpy"]\nworkloads = ["matmul"]\n'
                     'sizes = [64]\ndtypes = ["f32"]\n')
    res = jitbench("plan", "--suite", str(suite), "--workload-path", str(ema), out=False)
    lines = res.stderr.strip().splitlines()
    assert res.rc == 2 and len(lines) == 1, res.stderr
    assert "its workload 'ema_scan' is in no block of suite 'other'" in lines[0] and "drop --suite" in lines[0]
    # Named by the suite, the file is used and the plan is made.
    suite.write_text(suite.read_text().replace('workloads = ["matmul"]', 'workloads = ["matmul", "ema_scan"]'))
    _, cases = planned(jitbench, "--suite", str(suite), "--workload-path", str(ema))
    assert sorted(cases) == ["numpy_ema_scan_64_f32", "numpy_matmul_64_f32"], cases
    # --cases narrowing the plan away from it is a selection, not a mistake.
    _, cases = planned(jitbench, "--suite", str(suite), "--workload-path", str(ema), "--cases", "matmul_64_f32")
    assert cases == ["numpy_matmul_64_f32"], cases


def gpu_seen():
    """What jitbench's device check sees (nvidia-smi listing a GPU)."""
    import shutil
    import subprocess

    if not shutil.which("nvidia-smi"):
        return False
    p = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
    return p.returncode == 0 and "GPU" in p.stdout


def test_catalog_gpu_backends_are_planned_only_where_a_gpu_is_seen(jitbench, tmp_path):
    ema = write_ema(tmp_path, '{"backends": ["numpy", "jax_jit_gpu"]}')
    _, cases = planned(jitbench, "--workload-path", str(ema))
    want = ["numpy_ema_scan_1024_f32"] + (["jax_jit_gpu_ema_scan_1024_f32"] if gpu_seen() else [])
    assert sorted(cases) == sorted(want), cases
    if not gpu_seen():  # GPU backends alone, and no GPU: said, not an empty plan
        only_gpu = write_ema(tmp_path, '{"backends": ["jax_jit_gpu", "jax_eager_gpu"]}')
        res = jitbench("plan", "--workload-path", str(only_gpu), out=False)
        assert res.rc == 2 and "names only GPU backends" in res.stderr and "no GPU is seen" in res.stderr, res.stderr
