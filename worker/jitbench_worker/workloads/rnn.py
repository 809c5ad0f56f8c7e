"""A tanh RNN over a sequence of length n (JAX transforms guide): lax.scan
compiles the step once; a Python loop unrolled under jit traces n copies, so
its compile time grows with n. Returns the final hidden state."""

from . import _nets

D_IN, HIDDEN = 8, 64


def make(unrolled):
    def make_inputs(n, dtype, seed):
        import numpy as np

        rng = np.random.default_rng(seed)
        t = _nets.ftype(np, dtype)
        w = (rng.standard_normal((HIDDEN, HIDDEN)) / np.sqrt(HIDDEN)).astype(t)
        u = (rng.standard_normal((D_IN, HIDDEN)) / np.sqrt(D_IN)).astype(t)
        b = np.zeros(HIDDEN, dtype=t)
        return w, u, b, rng.standard_normal((n, D_IN)).astype(t)

    def reference(inputs):
        import numpy as np

        w, u, b, xs = (a.astype(np.float64) for a in inputs)
        h = np.zeros(HIDDEN)
        for x in xs:
            h = np.tanh(h @ w + x @ u + b)
        return h

    def check(out, inputs, n, dtype, seed, ctx=None):
        return _nets.judge(out, inputs, dtype, ctx, reference, "float64 NumPy recurrence"), \
            {"sequence_length": n, "unrolled": unrolled}

    def build_jax(adapter, n, dtype):
        jax, jnp = adapter.jax, adapter.jnp

        def cell(h, x, w, u, b):
            return jnp.tanh(h @ w + x @ u + b)

        def run(w, u, b, xs):
            h = jnp.zeros(HIDDEN, dtype=xs.dtype)
            if unrolled:
                for i in range(n):
                    h = cell(h, xs[i], w, u, b)
                return h
            return jax.lax.scan(lambda h, x: (cell(h, x, w, u, b), None), h, xs)[0]

        f = adapter.jit(run)
        f.memory_probe = lambda *a: _nets.compiled_memory(adapter, f, a)
        return f

    return {"make_inputs": make_inputs, "check": check, "IMPLEMENTATIONS": {"jax": build_jax}}
