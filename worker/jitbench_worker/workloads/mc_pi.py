"""Monte Carlo estimate of pi from n points, with the same counter-based
generator in every backend so that the estimates agree.

Point i uses counters c = 2i and 2i+1 (+ a key from the seed); each is hashed
with lowbias32 (a 32-bit integer hash) and its top 24 bits scaled by 2^-24 give a
coordinate in [0, 1) that is exact in float32 and float64. A point is inside
when x*x + y*y < 1, computed in the case's dtype.

Verification is against the exact integer count (X^2 + Y^2 < 2^48 on the
24-bit integers X, Y). In float64 every step is exact, so every backend must
count exactly those points. In float32 x*x + y*y is rounded at most twice by at
most 2^-24 each (with or without FMA), so only points with
|X^2 + Y^2 - 2^48| <= 2^25 (+ margin) may land on either side of the circle:
the float32 tolerance is their number, counted exactly for the case's n and
seed (about 19 at n = 1e8, usually 0 at n = 1e5).
"""

import math

SCALE = 2.0 ** -24
ONE = 1 << 48                   # 1.0 in units of 2^-48: X^2 + Y^2 < ONE is inside
F32_BAND = (1 << 25) + (1 << 10)  # |X^2 + Y^2 - ONE| within this: float32 may decide either way
MAX_SE = 6.0            # |pi - estimate| beyond 6 standard errors: the RNG is broken
prange = range          # numba_parallel rebinds this to numba.prange


def key_from_seed(seed: int) -> int:
    # 31 bits, so every framework can hold it as a default (signed) integer.
    return (seed * 0x9E3779B9) & 0x7FFFFFFF


def make_inputs(n, dtype, seed):
    return (key_from_seed(seed),)  # plain ints: the Python backend never imports numpy


def _mc_pi_loop(n, key, ftype):
    """Scalar loop: run as is by plain Python, compiled by numba (which cannot
    call a plain Python helper, hence the hash written inline once)."""
    scale = ftype(SCALE)
    one = ftype(1.0)
    inside = 0
    for i in prange(n):
        r2 = ftype(0.0)  # 0 + x*x is exact, so this is x*x + y*y
        for j in range(2):
            h = (2 * i + j + key) & 0xFFFFFFFF
            h = h ^ (h >> 16)
            h = (h * 0x7FEB352D) & 0xFFFFFFFF
            h = h ^ (h >> 15)
            h = (h * 0x846CA68B) & 0xFFFFFFFF
            h = h ^ (h >> 16)
            v = ftype(h >> 8) * scale
            r2 = r2 + v * v
        if r2 < one:
            inside += 1
    return inside


def _lowbias32(xp, h):
    """Vectorised hash over uint32 arrays (wrapping multiply == masking)."""
    h = h ^ (h >> 16)
    h = h * xp.uint32(0x7FEB352D)
    h = h ^ (h >> 15)
    h = h * xp.uint32(0x846CA68B)
    return h ^ (h >> 16)


def _mc_pi_vectorised(xp, n, key, ftype):
    """Array version for NumPy and JAX (xp is numpy or jax.numpy)."""
    i = xp.arange(n, dtype=xp.uint32)
    c = i * xp.uint32(2) + xp.asarray(key, dtype=xp.uint32)
    x = (_lowbias32(xp, c) >> 8).astype(ftype) * ftype(SCALE)
    y = (_lowbias32(xp, c + xp.uint32(1)) >> 8).astype(ftype) * ftype(SCALE)
    return xp.sum((x * x + y * y < ftype(1.0)).astype(xp.int64 if ftype == xp.float64 else xp.int32))


def exact_count(n, seed, chunk=1 << 22):
    """(inside, ambiguous): the exact integer count, and the number of points
    whose float32 test may round either way; in chunks to bound memory."""
    import numpy as np

    key = key_from_seed(seed)
    inside = ambiguous = 0
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        c = np.arange(m, dtype=np.uint32) * np.uint32(2) + np.uint32((key + 2 * start) & 0xFFFFFFFF)
        x = (_lowbias32(np, c) >> 8).astype(np.int64)
        y = (_lowbias32(np, c + np.uint32(1)) >> 8).astype(np.int64)
        r2 = x * x + y * y
        inside += int(np.count_nonzero(r2 < ONE))
        ambiguous += int(np.count_nonzero(np.abs(r2 - ONE) <= F32_BAND))
    return inside, ambiguous


def check(out, inputs, n, dtype, seed, ctx=None):
    count = int(out)
    if ctx is not None:
        ref, ambiguous = ctx.memo("reference", lambda: exact_count(n, seed))
    else:
        ref, ambiguous = exact_count(n, seed)
    tol = 0 if dtype == "f64" else ambiguous
    estimate = 4.0 * count / n
    p = math.pi / 4
    se = 4.0 * math.sqrt(p * (1 - p) / n)
    info = {"estimate": estimate, "abs_error": abs(math.pi - estimate),
            "error_in_se": abs(math.pi - estimate) / se, "inside": count, "n": n}
    ok = abs(count - ref) <= tol and info["error_in_se"] <= MAX_SE
    verify = {"ok": ok, "metric": "inside_count_difference", "error": abs(count - ref), "tolerance": tol,
              "tolerance_basis": {"precision": "fp64" if dtype == "f64" else "ieee_fp32",
                                  "basis": "float64 decides every point exactly" if dtype == "f64"
                                  else "points whose float32 test may round either way, counted exactly"},
              "reference": "exact integer count of X^2 + Y^2 < 2^48 with the same generator"}
    if not ok:
        verify["message"] = (f"count {count} vs exact {ref} (tolerance {tol}); "
                             f"estimate {estimate:.6f} is {info['error_in_se']:.1f} standard errors from pi")
    return verify, info


def _build_python(adapter, n, dtype):
    if dtype == "f32":
        import numpy as np  # plain Python has no float32: emulate with NumPy scalars

        return lambda key: _mc_pi_loop(n, key, np.float32)
    return lambda key: _mc_pi_loop(n, key, float)


def _build_numpy(adapter, n, dtype):
    import numpy as np

    ftype = np.float32 if dtype == "f32" else np.float64
    return lambda key: _mc_pi_vectorised(np, n, key, ftype)


def _build_numba(adapter, n, dtype):
    import numpy as np

    kernel = adapter.jit(_mc_pi_loop)
    ftype = np.float32 if dtype == "f32" else np.float64
    return lambda key: kernel(n, key, ftype)


def _build_jax(adapter, n, dtype):
    jnp = adapter.jnp
    ftype = jnp.float32 if dtype == "f32" else jnp.float64
    return adapter.jit(lambda key: _mc_pi_vectorised(jnp, n, key, ftype))


def _build_tensorflow(adapter, n, dtype):
    tf = adapter.tf
    ftype = tf.float32 if dtype == "f32" else tf.float64
    ctype = tf.int32 if dtype == "f32" else tf.int64
    shr, xor = tf.bitwise.right_shift, tf.bitwise.bitwise_xor

    def lowbias32(h):
        h = xor(h, shr(h, tf.constant(16, tf.uint32)))
        h = h * tf.constant(0x7FEB352D, tf.uint32)
        h = xor(h, shr(h, tf.constant(15, tf.uint32)))
        h = h * tf.constant(0x846CA68B, tf.uint32)
        return xor(h, shr(h, tf.constant(16, tf.uint32)))

    def mc_pi(key):
        # TensorFlow has no uint32 range: count in int64, wrap to 32 bits, then cast.
        c = tf.cast((tf.range(n, dtype=tf.int64) * 2 + key) & 0xFFFFFFFF, tf.uint32)
        x = tf.cast(shr(lowbias32(c), tf.constant(8, tf.uint32)), ftype) * tf.constant(SCALE, ftype)
        y = tf.cast(shr(lowbias32(c + tf.constant(1, tf.uint32)), tf.constant(8, tf.uint32)), ftype) \
            * tf.constant(SCALE, ftype)
        return tf.reduce_sum(tf.cast(x * x + y * y < tf.constant(1.0, ftype), ctype))

    f = adapter.jit(mc_pi)
    return lambda key: f(tf.constant(key, tf.int64))


def _build_torch(adapter, n, dtype):
    torch = adapter.torch
    ftype = torch.float32 if dtype == "f32" else torch.float64
    dev = adapter.dev
    mask = 0xFFFFFFFF

    def lowbias32(h):  # uint32 arithmetic in int64 with an explicit wrap
        h = h ^ (h >> 16)
        h = (h * 0x7FEB352D) & mask
        h = h ^ (h >> 15)
        h = (h * 0x846CA68B) & mask
        return h ^ (h >> 16)

    def mc_pi(key):
        c = (torch.arange(n, dtype=torch.int64, device=dev) * 2 + key) & mask
        x = (lowbias32(c) >> 8).to(ftype) * SCALE
        y = (lowbias32((c + 1) & mask) >> 8).to(ftype) * SCALE
        return (x * x + y * y < 1.0).sum()

    return adapter.jit(mc_pi)


def _build_triton(adapter, n, dtype):
    adapter.require_device_for("mc_pi", n, 1_000_000)
    import triton
    import triton.language as tl

    torch = adapter.torch
    block = 1024

    @triton.jit
    def kernel(out_ptr, n, key, BLOCK: tl.constexpr, F64: tl.constexpr):
        pid = tl.program_id(0)
        i = pid * BLOCK + tl.arange(0, BLOCK)
        c = (i * 2).to(tl.uint32) + key.to(tl.uint32)
        ftype = tl.float64 if F64 else tl.float32
        r2 = tl.zeros((BLOCK,), ftype)
        for j in tl.static_range(2):
            h = c + j
            h = h ^ (h >> 16)
            h = h * 0x7FEB352D
            h = h ^ (h >> 15)
            h = h * 0x846CA68B
            h = h ^ (h >> 16)
            v = (h >> 8).to(ftype) * 5.9604644775390625e-08  # SCALE: Triton reads no Python globals
            r2 = r2 + v * v
        inside = (r2 < 1.0) & (i < n)
        tl.store(out_ptr + pid, tl.sum(inside.to(tl.int32), axis=0))

    grid = (triton.cdiv(n, block),)
    partial = torch.zeros(grid[0], dtype=torch.int32, device=adapter.dev)

    def mc_pi(key):
        kernel[grid](partial, n, key, BLOCK=block, F64=dtype == "f64")
        return partial.sum()

    return mc_pi


IMPLEMENTATIONS = {
    "python": _build_python,
    "numpy": _build_numpy,
    "numba": _build_numba,
    "jax": _build_jax,
    "tensorflow": _build_tensorflow,
    "torch": _build_torch,
    "triton": _build_triton,
}
