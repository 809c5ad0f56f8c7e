"""Per-example losses of an MLP over a batch of n (JAX transforms guide):
jax.vmap of the one-example loss, or a Python loop over the examples unrolled
under jit (one traced copy per example: compile time grows with n)."""

from . import _nets

D_IN, HIDDEN, D_OUT = 16, 64, 4


def make(vectorised):
    def make_inputs(n, dtype, seed):
        return _nets.mlp_problem(seed, dtype, n, D_IN, HIDDEN, D_OUT)

    def reference(inputs):
        import numpy as np

        p, x, y = _nets.problem64(inputs)
        pred, _ = _nets.mlp_forward(np, p, x)
        return np.mean((pred - y) ** 2, axis=1) / 2

    def check(out, inputs, n, dtype, seed, ctx=None):
        import numpy as np

        if np.shape(out) != (n,):
            return {"ok": False, "message": f"shape {np.shape(out)}, expected {(n,)}"}, {}
        return _nets.judge(out, inputs, dtype, ctx, reference, "float64 NumPy per-example MSE"), \
            {"batch": n, "vectorised": vectorised}

    def build_jax(adapter, n, dtype):
        jax, jnp = adapter.jax, adapter.jnp

        def one(p, x, y):
            return _nets.mse(jnp, _nets.mlp_forward(jnp, p, x)[0], y)

        if vectorised:
            f = adapter.jit(jax.vmap(one, in_axes=(None, 0, 0)))
        else:
            f = adapter.jit(lambda p, xs, ys: jnp.stack([one(p, xs[i], ys[i]) for i in range(n)]))
        f.memory_probe = lambda *a: _nets.compiled_memory(adapter, f, a)
        return f

    return {"make_inputs": make_inputs, "check": check, "IMPLEMENTATIONS": {"jax": build_jax}}
