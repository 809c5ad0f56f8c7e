"""A short training run: STEPS Adam steps of a 2-layer tanh MLP (hidden width
n) on one fixed regression batch, as in a quick ablation. One call trains from
the same initial parameters and returns the parameters after STEPS steps and
the loss at each step (the loss curve). The step is the compiled unit (jax.jit,
tf.function, torch.compile of the forward pass and of the update, with the
backward from AOTAutograd); the loop over steps is Python, as in a training
script. Adam's bias corrections travel as inputs, one row per step, so that no
backend recompiles per step.

Verification: the final parameters and the whole loss curve against a float64
NumPy Adam with hand-written gradients (relative error under the precision
model's tolerance), and the loss must have gone down."""

from . import _nets

STEPS = 10
BATCH, D_IN, D_OUT = 128, 32, 8
LR, BETA1, BETA2, EPS = 1e-2, 0.9, 0.999, 1e-8
KEYS = ("w1", "b1", "w2", "b2")


def make_inputs(n, dtype, seed):
    import numpy as np

    p, x, y = _nets.mlp_problem(seed, dtype, BATCH, D_IN, n, D_OUT)
    t = _nets.ftype(np, dtype)
    k = np.arange(1, STEPS + 1, dtype=np.float64)
    corr = np.stack([1 - BETA1 ** k, 1 - BETA2 ** k], axis=1).astype(t)
    return (*(p[k_] for k_ in KEYS), x, y, corr)


def _adam(xp_sqrt, p, g, m, v, c1, c2):
    m = [BETA1 * mi + (1 - BETA1) * gi for mi, gi in zip(m, g)]
    v = [BETA2 * vi + (1 - BETA2) * gi * gi for vi, gi in zip(v, g)]
    p = [pi - LR * (mi / c1) / (xp_sqrt(vi / c2) + EPS) for pi, mi, vi in zip(p, m, v)]
    return p, m, v


def _train_np(np, params, x, y, corr):
    p, losses = list(params), []
    m = [np.zeros_like(q) for q in p]
    v = [np.zeros_like(q) for q in p]
    for k in range(STEPS):
        loss, g = _nets.mlp_loss_and_grads_np(dict(zip(KEYS, p)), x, y)
        losses.append(loss)
        p, m, v = _adam(np.sqrt, p, [g[k_] for k_ in KEYS], m, v, corr[k, 0], corr[k, 1])
    return p, np.asarray(losses, dtype=x.dtype)


def _reference(inputs):
    import numpy as np

    *params, x, y, corr = (np.asarray(a, np.float64) for a in inputs)
    k = np.arange(1, STEPS + 1, dtype=np.float64)
    corr = np.stack([1 - BETA1 ** k, 1 - BETA2 ** k], axis=1)  # exact, not the rounded input
    p, losses = _train_np(np, params, x, y, corr)
    return {**dict(zip(KEYS, p)), "losses": losses}


def check(out, inputs, n, dtype, seed, ctx=None):
    import numpy as np

    *params, losses = (np.asarray(a, np.float64) for a in out)
    got = {**dict(zip(KEYS, params)), "losses": losses.reshape(-1)}
    v = _nets.judge(got, inputs, dtype, ctx, _reference,
                    f"float64 NumPy Adam, {STEPS} steps, hand-written gradients")
    curve = got["losses"]
    if curve.shape != (STEPS,) or not np.all(np.isfinite(curve)) or not curve[-1] < curve[0]:
        v["ok"] = False
        v["message"] = f"the loss did not go down over {STEPS} steps: {curve[:1]} -> {curve[-1:]}"
    return v, {"steps": STEPS, "loss_first": float(curve[0]), "loss_last": float(curve[-1])}


def _train_loop(step, zeros_like, stack, p, corr):
    """STEPS calls of step(p, m, v, corrections) -> (p, m, v, loss) from zero
    Adam moments: the Python loop of a training script, shared by the
    frameworks whose step is compiled."""
    m = [zeros_like(q) for q in p]
    v = [zeros_like(q) for q in p]
    losses = []
    for k in range(STEPS):
        p, m, v, value = step(p, m, v, corr[k])
        losses.append(value)
    return (*p, stack(losses))


def _build_numpy(adapter, n, dtype):
    import numpy as np

    def train(w1, b1, w2, b2, x, y, corr):
        p, losses = _train_np(np, (w1, b1, w2, b2), x, y, corr)
        return (*p, losses)

    return train


def _build_jax(adapter, n, dtype):
    jax, jnp = adapter.jax, adapter.jnp

    def loss(p, x, y):
        return _nets.mse(jnp, _nets.mlp_forward(jnp, dict(zip(KEYS, p)), x)[0], y)

    def step(p, m, v, x, y, c):
        value, g = jax.value_and_grad(loss)(p, x, y)
        p, m, v = _adam(jnp.sqrt, p, g, m, v, c[0], c[1])
        return p, m, v, value

    step_j = adapter.jit(step)

    def train(w1, b1, w2, b2, x, y, corr):
        return _train_loop(lambda p, m, v, c: step_j(p, m, v, x, y, c), jnp.zeros_like, jnp.stack,
                           [w1, b1, w2, b2], corr)

    return train


def _build_tensorflow(adapter, n, dtype):
    tf = adapter.tf

    def step(w1, b1, w2, b2, m, v, x, y, c):
        p = [w1, b1, w2, b2]
        with tf.GradientTape() as tape:
            tape.watch(p)
            value = tf.reduce_mean((_nets.mlp_forward(tf, dict(zip(KEYS, p)), x)[0] - y) ** 2) / 2
        g = tape.gradient(value, p)
        p, m, v = _adam(tf.sqrt, p, g, m, v, c[0], c[1])
        return p, m, v, value

    step_f = adapter.jit(step)

    def train(w1, b1, w2, b2, x, y, corr):
        return _train_loop(lambda p, m, v, c: step_f(*p, m, v, x, y, c), tf.zeros_like, tf.stack,
                           [w1, b1, w2, b2], corr)

    return train


def _build_torch(adapter, n, dtype):
    torch = adapter.torch

    def loss(w1, b1, w2, b2, x, y):
        return _nets.mse(torch, _nets.mlp_forward(torch, {"w1": w1, "b1": b1, "w2": w2, "b2": b2}, x)[0], y)

    loss_c = adapter.jit(loss)
    update_c = adapter.jit(lambda p, g, m, v, c: _adam(torch.sqrt, p, g, m, v, c[0], c[1]))

    def step(p, m, v, c, x, y):
        with torch.enable_grad():
            leaves = [q.detach().requires_grad_() for q in p]
            value = loss_c(*leaves, x, y)
            g = torch.autograd.grad(value, leaves)
        with torch.no_grad():
            p, m, v = update_c(p, list(g), m, v, c)
        return p, m, v, value.detach()

    def train(w1, b1, w2, b2, x, y, corr):
        return _train_loop(lambda p, m, v, c: step(p, m, v, c, x, y), torch.zeros_like, torch.stack,
                           [w1, b1, w2, b2], corr)

    return train


IMPLEMENTATIONS = {
    "numpy": _build_numpy,
    "jax": _build_jax,
    "tensorflow": _build_tensorflow,
    "torch": _build_torch,
}
