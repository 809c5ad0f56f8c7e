"""A jitted MLP training step with stable shapes (JAX transforms guide), called
STEPS times per measured call, with or without donate_argnums on the parameters.

Every call starts from a fresh copy of the initial parameters (made in both
variants, so that donation can consume it), runs STEPS SGD steps on one fixed
batch and returns the parameters. n is the hidden width."""

from . import _nets

STEPS = 20
BATCH, D_IN, D_OUT, LR = 128, 32, 8, 0.1


def make(donate):
    def make_inputs(n, dtype, seed):
        return _nets.mlp_problem(seed, dtype, BATCH, D_IN, n, D_OUT)

    def check(out, inputs, n, dtype, seed, ctx=None):
        return _nets.judge(out, inputs, dtype, ctx, lambda i: _nets.sgd_reference(i, STEPS, LR),
                           f"float64 NumPy SGD, {STEPS} steps, hand-written gradients"), \
            {"steps": STEPS, "donate": donate}

    def build_jax(adapter, n, dtype):
        jax, jnp = adapter.jax, adapter.jnp

        def loss(p, x, y):
            return _nets.mse(jnp, _nets.mlp_forward(jnp, p, x)[0], y)

        def step(p, x, y):
            g = jax.grad(loss)(p, x, y)
            return jax.tree_util.tree_map(lambda a, b: a - LR * b, p, g)

        step_j = adapter.jit(step, donate_argnums=(0,) if donate else ())

        def train(p, x, y):
            p = jax.tree_util.tree_map(jnp.copy, p)
            for _ in range(STEPS):
                p = step_j(p, x, y)
            return p

        train.memory_probe = lambda p, x, y: _nets.compiled_memory(adapter, step_j, (p, x, y))
        return train

    return {"make_inputs": make_inputs, "check": check, "IMPLEMENTATIONS": {"jax": build_jax}}
