"""N x N matrix product. Every backend calls its library matmul (`a @ b`): BLAS
for NumPy and numba, XLA's dot for JAX and TensorFlow, ATen/inductor for torch,
the tutorial's blocked kernel for Triton; plain Python runs the textbook triple
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


def _build_triton(adapter, n, dtype):
    """The blocked matmul of Triton's tutorial (float32 accumulate, no autotune)."""
    if dtype == "f64":
        from ..backends.base import Unsupported

        raise Unsupported("Triton's tl.dot has no float64 path on most GPUs")
    import triton
    import triton.language as tl

    torch = adapter.torch

    @triton.jit
    def kernel(a_ptr, b_ptr, c_ptr, n, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        pm, pn = tl.program_id(0), tl.program_id(1)
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), tl.float32)
        for k in range(0, tl.cdiv(n, BK)):
            kk = k * BK + rk
            a = tl.load(a_ptr + rm[:, None] * n + kk[None, :], mask=(rm[:, None] < n) & (kk[None, :] < n), other=0.0)
            b = tl.load(b_ptr + kk[:, None] * n + rn[None, :], mask=(kk[:, None] < n) & (rn[None, :] < n), other=0.0)
            acc += tl.dot(a, b, input_precision="ieee")
        tl.store(c_ptr + rm[:, None] * n + rn[None, :], acc, mask=(rm[:, None] < n) & (rn[None, :] < n))

    bm = bn = 64
    grid = (triton.cdiv(n, bm), triton.cdiv(n, bn))

    def matmul(a, b):
        c = torch.empty((n, n), dtype=torch.float32, device=adapter.dev)
        kernel[grid](a, b, c, n, BM=bm, BN=bn, BK=32)
        return c

    return matmul


IMPLEMENTATIONS = {
    "python": _build_python,
    "numpy": lambda adapter, n, dtype: _matmul,
    "numba": lambda adapter, n, dtype: adapter.jit(_matmul),
    "jax": lambda adapter, n, dtype: adapter.jit(_matmul),
    "tensorflow": lambda adapter, n, dtype: adapter.jit(_matmul),
    "torch": lambda adapter, n, dtype: adapter.jit(_matmul),
    "triton": _build_triton,
}
