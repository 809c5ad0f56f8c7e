"""A function called on a stream of inputs of varying length: the case where a
shape-specializing JIT recompiles. Two variants, measured side by side:

  retrace_raw       each input as it comes: one compile per new length (JAX)
  retrace_bucketed  inputs zero-padded to the next power of two with a mask:
                    one compile per bucket

The function is sum(tanh(x)^2) over the valid elements; one call processes the
whole stream, so the first call carries every compile. Padding happens when the
inputs are built (setup), as a data pipeline would do it. numba specializes on
dtype and rank, not length, so it compiles once either way; NumPy never does.
"""

import math

N_INPUTS = 24
F32_TOL = 1e-4
F64_TOL = 1e-10


def lengths(n, seed):
    lo = max(1, n // 4)
    span = max(1, n - lo + 1)
    return [lo + ((k * 2654435761 + seed * 97) % span) for k in range(N_INPUTS)]


def _bucket(length):
    return 1 << (length - 1).bit_length()


def make(bucketed):
    def make_inputs(n, dtype, seed):
        import numpy as np

        rng = np.random.default_rng(seed)
        t = np.float32 if dtype == "f32" else np.float64
        xs = [rng.standard_normal(L).astype(t) for L in lengths(n, seed)]
        if not bucketed:
            return (xs,)
        padded, masks = [], []
        for x in xs:
            size = _bucket(len(x))
            padded.append(np.concatenate([x, np.zeros(size - len(x), dtype=t)]))
            masks.append(np.arange(size) < len(x))
        return (padded, masks)

    def check(out, inputs, n, dtype, seed):
        return _check(bucketed, out, inputs, n, dtype, seed)

    def over_stream(kernel):
        if bucketed:
            return lambda xs, ms: sum(kernel(x, m) for x, m in zip(xs, ms))
        return lambda xs: sum(kernel(x) for x in xs)

    def build_loops(adapter, n, dtype, jit=None):
        if jit is None and dtype == "f32":
            from ..backends.base import Unsupported

            raise Unsupported("plain Python computes in float64 only")
        kernel = _masked_loop if bucketed else _plain_loop
        return over_stream(jit(kernel) if jit else kernel)

    def build_numpy(adapter, n, dtype):
        import numpy as np

        if bucketed:
            return over_stream(lambda x, m: np.sum(np.where(m, np.tanh(x) ** 2, 0)))
        return over_stream(lambda x: np.sum(np.tanh(x) ** 2))

    def build_jax(adapter, n, dtype):
        jnp = adapter.jnp
        if bucketed:
            return over_stream(adapter.jit(lambda x, m: jnp.sum(jnp.where(m, jnp.tanh(x) ** 2, 0))))
        return over_stream(adapter.jit(lambda x: jnp.sum(jnp.tanh(x) ** 2)))

    impls = {
        "python": build_loops,
        "numpy": build_numpy,
        "numba": lambda adapter, n, dtype: build_loops(adapter, n, dtype, jit=adapter.jit),
        "jax": build_jax,
    }
    return {"make_inputs": make_inputs, "check": check, "IMPLEMENTATIONS": impls}


def _check(bucketed, out, inputs, n, dtype, seed):
    import numpy as np

    xs = inputs[0]
    masks = inputs[1] if bucketed else [np.ones(len(x), dtype=bool) for x in xs]
    ref = sum(float(np.sum(np.tanh(x.astype(np.float64)[m]) ** 2)) for x, m in zip(xs, masks))
    got = float(out)
    err = abs(got - ref) / abs(ref)
    tol = F32_TOL if dtype == "f32" else F64_TOL
    verify = {"ok": err <= tol, "metric": "relative_error", "error": err, "tolerance": tol,
              "reference": "float64 NumPy over the same stream"}
    if err > tol:
        verify["message"] = f"relative error {err:.3g} exceeds {tol:g}"
    Ls = lengths(n, seed)
    info = {"stream_length": len(Ls), "distinct_lengths": len(set(Ls)),
            "distinct_buckets": len({_bucket(L) for L in Ls}), "bucketed": bucketed}
    return verify, info


def _plain_loop(x):
    s = 0.0
    for i in range(len(x)):
        t = math.tanh(x[i])
        s += t * t
    return s


def _masked_loop(x, m):
    s = 0.0
    for i in range(len(x)):
        if m[i]:
            t = math.tanh(x[i])
            s += t * t
    return s
