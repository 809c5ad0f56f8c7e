"""An example user workload: row-wise softmax of an n x 256 matrix.

Run it with
    build/jitbench run --workload-path examples/workloads/softmax_rows.py \
        --cases softmax_rows_4096_f32 --backends numpy,numba,jax_jit_cpu,tensorflow

The workload's name is the file's stem. The contract (docs/user-workloads.md):
  make_inputs(n, dtype, seed) -> tuple of NumPy inputs, built on the host
  check(out, inputs, n, dtype, seed) -> (verify dict, info dict); out is NumPy
  IMPLEMENTATIONS = {framework: build(adapter, n, dtype) -> callable(*inputs)}
Import frameworks inside the functions, never at the top of the file: jitbench
times the import of each backend itself.
"""

import os

COLS = 256
# JITBENCH_EXAMPLE_SLEEP_S adds a sleep to every call: how the tests make a
# deliberately slower run for `jitbench compare`.
_SLEEP_S = float(os.environ.get("JITBENCH_EXAMPLE_SLEEP_S", "0"))


def make_inputs(n, dtype, seed):
    import numpy as np

    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n, COLS)).astype(np.float32 if dtype == "f32" else np.float64),)


def check(out, inputs, n, dtype, seed):
    import numpy as np

    x = inputs[0].astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    if out.shape != want.shape:
        return {"ok": False, "message": f"shape {out.shape}, expected {want.shape}"}, {}
    err = float(np.max(np.abs(out.astype(np.float64) - want)))
    tol = 1e-6 if dtype == "f32" else 1e-14
    verify = {"ok": err <= tol, "metric": "max_abs_error", "error": err, "tolerance": tol,
              "reference": "float64 NumPy softmax"}
    if err > tol:
        verify["message"] = f"max abs error {err:.3g} exceeds {tol:g}"
    return verify, {"rows": n, "cols": COLS}


def _softmax(xp, x):
    e = xp.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _slow(fn):
    if not _SLEEP_S:
        return fn
    import time

    def slowed(*args):
        time.sleep(_SLEEP_S)
        return fn(*args)

    return slowed


def _build_numpy(adapter, n, dtype):
    import numpy as np

    return _slow(lambda x: _softmax(np, x))


def _softmax_loops(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        e = np.exp(x[i] - x[i].max())
        out[i] = e / e.sum()
    return out


def _build_numba(adapter, n, dtype):
    import numpy

    globals()["np"] = numpy  # the compiled function reads np from this module
    return _slow(adapter.jit(_softmax_loops))


def _build_jax(adapter, n, dtype):
    return _slow(adapter.jit(lambda x: _softmax(adapter.jnp, x)))


def _build_tensorflow(adapter, n, dtype):
    return _slow(adapter.jit(lambda x: adapter.tf.nn.softmax(x, axis=1)))


IMPLEMENTATIONS = {
    "numpy": _build_numpy,
    "numba": _build_numba,
    "jax": _build_jax,
    "tensorflow": _build_tensorflow,
}
