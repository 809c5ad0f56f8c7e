"""N x N matrix product. Every backend calls its library matmul (`a @ b`): BLAS
for NumPy and numba, XLA's dot for JAX and TensorFlow, ATen/inductor for torch,
the tutorial's blocked kernel for Triton; plain Python runs the textbook triple
loop (there is no library), so keep n small there."""

from .. import verify as _verify


def _dtype(np, dtype):
    return np.float32 if dtype == "f32" else np.float64


def make_inputs(n, dtype, seed):
    import numpy as np

    rng = np.random.default_rng(seed)
    t = _dtype(np, dtype)
    return rng.standard_normal((n, n)).astype(t), rng.standard_normal((n, n)).astype(t)


def _reference(inputs):
    """C and |A||B| in float64 (the second scales the elementwise bound)."""
    import numpy as np

    a, b = (x.astype(np.float64) for x in inputs)
    return a @ b, np.abs(a) @ np.abs(b)


def _frobenius(np, x):
    """||x||_F by a pairwise sum of squares: np.linalg.norm goes through BLAS,
    whose threads spin for a CPU on a busy machine (60-75 ms against 0.5-3.5 ms
    for n = 512 at a load of 18 on 2 cores; docs/harness-fidelity.md)."""
    return float(np.sqrt(np.sum(np.square(x))))


def check(out, inputs, n, dtype, seed, ctx=None):
    """Both bounds of verify.matmul_bounds for the format the products were
    computed in: every element within the worst-case bound, and the whole
    matrix within the random-rounding bound (which tells TF32 from IEEE)."""
    import numpy as np

    ctx = ctx or _verify.Context(dtype)
    ref, scale = ctx.memo("reference", lambda: _reference(inputs))
    want = _dtype(np, dtype)
    if out.shape != ref.shape:
        return {"ok": False, "message": f"shape {out.shape}, expected {ref.shape}"}, {}
    if out.dtype != want:
        return {"ok": False, "message": f"dtype {out.dtype}, expected {np.dtype(want)}"}, {}
    if not np.all(np.isfinite(out)):
        return {"ok": False, "message": "non-finite values in the result"}, {}
    diff = out.astype(np.float64) - ref
    ref_norm = _frobenius(np, ref)
    # An all-zero product (zero inputs from a user's make_inputs): no relative
    # error exists, so the absolute one is compared (elementwise likewise where |A||B| is 0).
    err = _frobenius(np, diff) / ref_norm if ref_norm else _frobenius(np, diff)
    metric = "relative_frobenius_error" if ref_norm else "absolute_frobenius_error"
    elementwise = float(np.max(np.abs(diff) / np.where(scale > 0, scale, 1.0)))
    bound_el, bound_fro = _verify.matmul_bounds(ctx.matmul, n)
    ok = err <= bound_fro and elementwise <= bound_el
    verify = {"ok": ok, "metric": metric, "error": err, "tolerance": bound_fro,
              "elementwise_error": elementwise, "elementwise_tolerance": bound_el,
              "tolerance_basis": {"precision": ctx.matmul, "basis": "matmul error bounds (docs/precision.md)",
                                  "reduction_length": n},
              "reference": "float64 numpy matmul of the same inputs"}
    if err > bound_fro:
        kind = metric.split("_")[0]
        verify["message"] = f"{kind} error {err:.3g} exceeds {bound_fro:.3g} ({ctx.matmul} products, k = {n})"
    elif elementwise > bound_el:
        verify["message"] = (f"an element's error is {elementwise:.3g} of |A||B|, above the worst-case bound "
                             f"{bound_el:.3g} ({ctx.matmul} products, k = {n})")
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
    """The blocked matmul of Triton's tutorial (float32 accumulate, no autotune);
    tl.dot's input_precision is the adapter's: Triton's default (TF32 on an
    Ampere-or-later GPU) at --precision default, "ieee" at highest."""
    if dtype == "f64":
        from ..backends.base import Unsupported

        raise Unsupported("Triton's tl.dot has no float64 path on most GPUs")
    adapter.require_device_for("matmul", n, 512)
    import triton
    import triton.language as tl

    torch = adapter.torch

    @triton.jit
    def kernel(a_ptr, b_ptr, c_ptr, n, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
               PRECISION: tl.constexpr):
        pm, pn = tl.program_id(0), tl.program_id(1)
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), tl.float32)
        for k in range(0, tl.cdiv(n, BK)):
            kk = k * BK + rk
            a = tl.load(a_ptr + rm[:, None] * n + kk[None, :], mask=(rm[:, None] < n) & (kk[None, :] < n), other=0.0)
            b = tl.load(b_ptr + kk[:, None] * n + rn[None, :], mask=(kk[:, None] < n) & (rn[None, :] < n), other=0.0)
            acc += tl.dot(a, b, input_precision=PRECISION)
        tl.store(c_ptr + rm[:, None] * n + rn[None, :], acc, mask=(rm[:, None] < n) & (rn[None, :] < n))

    bm = bn = 64
    grid = (triton.cdiv(n, bm), triton.cdiv(n, bn))

    def matmul(a, b):
        c = torch.empty((n, n), dtype=torch.float32, device=adapter.dev)
        kernel[grid](a, b, c, n, BM=bm, BN=bn, BK=32, PRECISION=adapter.input_precision)
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
