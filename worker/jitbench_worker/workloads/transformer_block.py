"""One step of a short fine-tuning: forward and backward of a pre-norm
transformer block over a sequence of n tokens of width D (single-head causal
attention, then a tanh-GELU MLP of width 4D, each with a residual), loss =
mean((block(x) - target)^2) / 2. One call returns the loss and the gradient of
every parameter; the compiled unit is the forward + backward (jax.jit of
value_and_grad, tf.function over a GradientTape, torch.compile of the forward
with AOTAutograd's backward).

Verification against float64 NumPy: the loss, and the gradient through
DIRECTIONS directional derivatives <grad, u> along seeded random directions u,
each computed in float64 by the complex step (Im L(p + i h u) / h, exact to
rounding, no finite-difference error), all under the precision model's
tolerance. A gradient that is wrong in any direction fails."""

from . import _nets

D, DIRECTIONS, COMPLEX_STEP = 64, 3, 1e-30
KEYS = ("ln1_g", "ln1_b", "wq", "wk", "wv", "wo", "ln2_g", "ln2_b", "w1", "b1", "w2", "b2")


class _Ops:
    """The few array operations whose spelling differs between frameworks."""

    def __init__(self, xp, mean, amax, total, t, tanh=None, exp=None, sqrt=None):
        self.mean, self.max, self.sum, self.T = mean, amax, total, t
        self.tanh, self.exp, self.sqrt = tanh or xp.tanh, exp or xp.exp, sqrt or xp.sqrt


def _numpy_ops(np):
    return _Ops(np, lambda x: np.mean(x, axis=-1, keepdims=True), lambda x: np.max(x.real, axis=-1, keepdims=True),
                lambda x: np.sum(x, axis=-1, keepdims=True), lambda x: x.T)


def _layernorm(o, x, g, b):
    mu = o.mean(x)
    var = o.mean((x - mu) * (x - mu))
    return (x - mu) / o.sqrt(var + 1e-5) * g + b


def _gelu(o, x):
    return 0.5 * x * (1 + o.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


def _loss(o, p, x, target, mask):
    h = _layernorm(o, x, p["ln1_g"], p["ln1_b"])
    q, k, v = h @ p["wq"], h @ p["wk"], h @ p["wv"]
    scores = (q @ o.T(k)) * (1.0 / D ** 0.5) + mask
    e = o.exp(scores - o.max(scores))
    x = x + ((e / o.sum(e)) @ v) @ p["wo"]
    h = _layernorm(o, x, p["ln2_g"], p["ln2_b"])
    y = x + _gelu(o, h @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"]
    r = y - target
    return o.mean(o.T(o.mean(r * r)))[0, 0] / 2  # the mean over all of r * r


def make_inputs(n, dtype, seed):
    import numpy as np

    rng = np.random.default_rng(seed)
    t = _nets.ftype(np, dtype)
    p = {"ln1_g": 1 + 0.1 * rng.standard_normal(D), "ln1_b": 0.1 * rng.standard_normal(D),
         "ln2_g": 1 + 0.1 * rng.standard_normal(D), "ln2_b": 0.1 * rng.standard_normal(D),
         "b1": 0.1 * rng.standard_normal(4 * D), "b2": 0.1 * rng.standard_normal(D)}
    for name, shape in (("wq", (D, D)), ("wk", (D, D)), ("wv", (D, D)), ("wo", (D, D)), ("w1", (D, 4 * D)),
                        ("w2", (4 * D, D))):
        p[name] = rng.standard_normal(shape) / np.sqrt(shape[0])
    x = rng.standard_normal((n, D))
    target = rng.standard_normal((n, D))
    mask = np.triu(np.full((n, n), -1e9), k=1)  # causal: a token sees itself and the ones before it
    return (*(p[k].astype(t) for k in KEYS), x.astype(t), target.astype(t), mask.astype(t))


def _directions(inputs):
    import numpy as np

    rng = np.random.default_rng(12345)
    return [[rng.standard_normal(np.shape(a)) for a in inputs[:len(KEYS)]] for _ in range(DIRECTIONS)]


def _reference(inputs):
    """float64 loss and the directional derivatives along _directions, by the complex step."""
    import numpy as np

    o = _numpy_ops(np)
    p = [np.asarray(a, np.float64) for a in inputs[:len(KEYS)]]
    x, target, mask = (np.asarray(a, np.float64) for a in inputs[len(KEYS):])
    loss = float(_loss(o, dict(zip(KEYS, p)), x, target, mask).real)
    dirs = []
    for u in _directions(inputs):
        shifted = {k: a + 1j * COMPLEX_STEP * du for k, a, du in zip(KEYS, p, u)}
        dirs.append(float(_loss(o, shifted, x.astype(complex), target, mask).imag / COMPLEX_STEP))
    return {"loss": np.array([loss]), "directional": np.array(dirs)}


def check(out, inputs, n, dtype, seed, ctx=None):
    import numpy as np

    loss, *grads = (np.asarray(a, np.float64) for a in out)
    dirs = [sum(float(np.sum(g * du)) for g, du in zip(grads, u)) for u in _directions(inputs)]
    got = {"loss": loss.reshape(1), "directional": np.array(dirs)}
    v = _nets.judge(got, inputs, dtype, ctx, _reference,
                    f"float64 NumPy forward; the gradient along {DIRECTIONS} random directions by the complex step")
    return v, {"steps": 1, "loss": float(loss.reshape(-1)[0]), "seq_len": n, "width": D}


def _build_jax(adapter, n, dtype):
    jax, jnp = adapter.jax, adapter.jnp
    o = _Ops(jnp, lambda x: jnp.mean(x, axis=-1, keepdims=True), lambda x: jnp.max(x, axis=-1, keepdims=True),
             lambda x: jnp.sum(x, axis=-1, keepdims=True), lambda x: x.T)
    grad = jax.value_and_grad(lambda p, x, t, m: _loss(o, dict(zip(KEYS, p)), x, t, m))

    def step(*args):
        value, g = grad(list(args[:len(KEYS)]), *args[len(KEYS):])
        return (value, *g)

    return adapter.jit(step)


def _build_tensorflow(adapter, n, dtype):
    tf = adapter.tf
    o = _Ops(tf, lambda x: tf.reduce_mean(x, axis=-1, keepdims=True),
             lambda x: tf.reduce_max(x, axis=-1, keepdims=True), lambda x: tf.reduce_sum(x, axis=-1, keepdims=True),
             tf.transpose, tanh=tf.tanh, exp=tf.exp, sqrt=tf.sqrt)

    def step(*args):
        p = list(args[:len(KEYS)])
        with tf.GradientTape() as tape:
            tape.watch(p)
            value = _loss(o, dict(zip(KEYS, p)), *args[len(KEYS):])
        return (value, *tape.gradient(value, p))

    return adapter.jit(step)


def _build_torch(adapter, n, dtype):
    torch = adapter.torch
    o = _Ops(torch, lambda x: x.mean(dim=-1, keepdim=True), lambda x: x.amax(dim=-1, keepdim=True),
             lambda x: x.sum(dim=-1, keepdim=True), lambda x: x.T)
    loss_c = adapter.jit(lambda p, x, t, m: _loss(o, dict(zip(KEYS, p)), x, t, m))

    def step(*args):
        with torch.enable_grad():
            p = [a.detach().requires_grad_() for a in args[:len(KEYS)]]
            value = loss_c(p, *args[len(KEYS):])
            g = torch.autograd.grad(value, p)
        return (value.detach(), *g)

    return step


IMPLEMENTATIONS = {
    "jax": _build_jax,
    "tensorflow": _build_tensorflow,
    "torch": _build_torch,
}
