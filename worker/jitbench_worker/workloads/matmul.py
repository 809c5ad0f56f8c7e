"""N x N matrix product. Every backend calls its library matmul (`a @ b`): BLAS
for NumPy and numba, XLA's dot for JAX; plain Python runs the textbook triple
loop (there is no library), so keep n small there."""

F32_TOL = 1e-4   # relative Frobenius error; blocked float32 sums land near 1e-6
F64_TOL = 1e-12


def _dtype(np, dtype):
    return np.float32 if dtype == "f32" else np.float64


def make_inputs(n, dtype, seed):
    import numpy as np

    rng = np.random.default_rng(seed)
    t = _dtype(np, dtype)
    return rng.standard_normal((n, n)).astype(t), rng.standard_normal((n, n)).astype(t)


def check(out, inputs, n, dtype, seed):
    import numpy as np

    a, b = inputs
    ref = a.astype(np.float64) @ b.astype(np.float64)
    tol = F32_TOL if dtype == "f32" else F64_TOL
    want = _dtype(np, dtype)
    if out.shape != ref.shape:
        return {"ok": False, "message": f"shape {out.shape}, expected {ref.shape}"}, {}
    if out.dtype != want:
        return {"ok": False, "message": f"dtype {out.dtype}, expected {np.dtype(want)}"}, {}
    if not np.all(np.isfinite(out)):
        return {"ok": False, "message": "non-finite values in the result"}, {}
    err = float(np.linalg.norm(out.astype(np.float64) - ref) / np.linalg.norm(ref))
    ok = err <= tol
    verify = {"ok": ok, "metric": "relative_frobenius_error", "error": err, "tolerance": tol,
              "reference": "float64 numpy matmul of the same inputs"}
    if not ok:
        verify["message"] = f"relative error {err:.3g} exceeds {tol:g}"
    return verify, {"flops": 2 * n ** 3}


def _matmul(a, b):
    return a @ b


def _matmul_loops(a, b):
    n = len(a)
    m = len(b[0])
    k_range = range(len(b))
    out = []
    for i in range(n):
        row = a[i]
        out.append([sum(row[k] * b[k][j] for k in k_range) for j in range(m)])
    return out


def _build_python(adapter, n, dtype):
    if dtype == "f32":
        from ..backends.base import Unsupported

        raise Unsupported("plain Python computes in float64 only")
    return _matmul_loops


IMPLEMENTATIONS = {
    "python": _build_python,
    "numpy": lambda adapter, n, dtype: _matmul,
    "numba": lambda adapter, n, dtype: adapter.jit(_matmul),
    "jax": lambda adapter, n, dtype: adapter.jit(_matmul),
}
