"""Gradient of a stack of n residual blocks x <- x + tanh(x W_i + b_i), with or
without jax.checkpoint on every block (JAX transforms guide): checkpointing
keeps fewer activations for the backward pass (XLA's temp buffer size is
recorded) and recomputes them instead (time)."""

from . import _nets

BATCH, WIDTH = 256, 256


def make(checkpoint):
    def make_inputs(n, dtype, seed):
        import numpy as np

        rng = np.random.default_rng(seed)
        t = _nets.ftype(np, dtype)
        ws = (rng.standard_normal((n, WIDTH, WIDTH)) / np.sqrt(WIDTH) * 0.5).astype(t)
        bs = np.zeros((n, WIDTH), dtype=t)
        return ws, bs, rng.standard_normal((BATCH, WIDTH)).astype(t)

    def reference(inputs):
        import numpy as np

        ws, bs, x = (a.astype(np.float64) for a in inputs)
        n = len(ws)
        xs, hs = [x], []
        for i in range(n):
            h = np.tanh(xs[-1] @ ws[i] + bs[i])
            hs.append(h)
            xs.append(xs[-1] + h)
        g = xs[-1] / xs[-1].size  # d/dx of mean(x^2)/2
        gw, gb = np.zeros_like(ws), np.zeros_like(bs)
        for i in reversed(range(n)):
            dz = g * (1 - hs[i] ** 2)
            gw[i] = xs[i].T @ dz
            gb[i] = dz.sum(0)
            g = g + dz @ ws[i].T
        return {"w": gw, "b": gb}

    def check(out, inputs, n, dtype, seed, ctx=None):
        return _nets.judge({"w": out[0], "b": out[1]}, inputs, dtype, ctx, reference,
                           "float64 NumPy backward pass by hand"), {"blocks": n, "checkpoint": checkpoint}

    def build_jax(adapter, n, dtype):
        jax, jnp = adapter.jax, adapter.jnp

        def block(x, w, b):
            return x + jnp.tanh(x @ w + b)

        blk = jax.checkpoint(block) if checkpoint else block

        def loss(ws, bs, x):
            for i in range(n):
                x = blk(x, ws[i], bs[i])
            return jnp.mean(x ** 2) / 2

        f = adapter.jit(jax.grad(loss, argnums=(0, 1)))
        f.memory_probe = lambda *a: _nets.compiled_memory(adapter, f, a)
        return f

    return {"make_inputs": make_inputs, "check": check, "IMPLEMENTATIONS": {"jax": build_jax}}
