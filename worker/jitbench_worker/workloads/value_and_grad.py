"""Loss, gradients and metrics of an MLP (JAX transforms guide):
value_and_grad(has_aux=True) returns the metrics from the same forward pass;
the alternative takes grad and then runs a second forward pass for them.
n is the batch size."""

from . import _nets

D_IN, HIDDEN, D_OUT = 32, 256, 8


def make(aux):
    def make_inputs(n, dtype, seed):
        return _nets.mlp_problem(seed, dtype, n, D_IN, HIDDEN, D_OUT)

    def reference(inputs):
        import numpy as np

        p, x, y = _nets.problem64(inputs)
        loss, g = _nets.mlp_loss_and_grads_np(p, x, y)
        pred, _ = _nets.mlp_forward(np, p, x)
        return loss, g, float(np.mean(np.abs(pred - y)))

    def error(got, want):
        (got_loss, got_g, got_mae), (loss, g, mae) = got, want
        return max(_nets.max_rel_error(got_g, g), abs(float(got_loss) - loss) / abs(loss),
                   abs(float(got_mae) - mae) / mae)

    def check(out, inputs, n, dtype, seed, ctx=None):
        return _nets.judge(out, inputs, dtype, ctx, reference,
                           "float64 NumPy loss, gradients (by hand) and mean absolute error", error), \
            {"batch": n, "has_aux": aux}

    def build_jax(adapter, n, dtype):
        jax, jnp = adapter.jax, adapter.jnp

        def loss_aux(p, x, y):
            pred = _nets.mlp_forward(jnp, p, x)[0]
            return _nets.mse(jnp, pred, y), jnp.mean(jnp.abs(pred - y))

        if aux:
            def step(p, x, y):
                (loss, mae), g = jax.value_and_grad(loss_aux, has_aux=True)(p, x, y)
                return loss, g, mae
        else:
            def step(p, x, y):
                g = jax.grad(lambda *a: loss_aux(*a)[0])(p, x, y)
                loss, mae = loss_aux(p, x, y)  # the second forward pass
                return loss, g, mae

        f = adapter.jit(step)
        f.memory_probe = lambda *a: _nets.compiled_memory(adapter, f, a)
        return f

    return {"make_inputs": make_inputs, "check": check, "IMPLEMENTATIONS": {"jax": build_jax}}
