"""The short loop that motivates jitbench: a hyper-parameter sweep of n small
logistic-regression fits, measured end to end in a fresh process.

Fit k runs STEPS steps of full-batch gradient descent with learning rate
lr_k (n rates spaced geometrically over LR_RANGE) and L2 penalty L2 on the same
M x D data set; the call returns all n weight vectors (bias last), shape
(n, D + 1). The time to first result of a cold run is then "time until the
whole sweep is done". Every backend runs this same algorithm; a JIT compiles
one fit (the learning rate is an argument, so one compile serves the sweep)."""

M, D, STEPS, L2 = 256, 16, 100, 1e-3
LR_RANGE = (0.05, 2.0)
F32_TOL, F64_TOL = 1e-3, 1e-9
prange = range  # numba_parallel rebinds this to numba.prange


def _learning_rates(np, n, t):
    return np.geomspace(*LR_RANGE, n).astype(t)


def make_inputs(n, dtype, seed):
    import numpy as np

    rng = np.random.default_rng(seed)
    t = np.float32 if dtype == "f32" else np.float64
    x = rng.standard_normal((M, D))
    w_true = rng.standard_normal(D)
    y = (rng.random(M) < 1 / (1 + np.exp(-(x @ w_true)))).astype(np.float64)
    return x.astype(t), y.astype(t), _learning_rates(np, n, t)


def _fit_np(np, x, y, lr, l2, steps):
    w = np.zeros(x.shape[1], dtype=x.dtype)
    b = x.dtype.type(0)
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        r = p - y
        w = w - lr * (x.T @ r / x.shape[0] + l2 * w)
        b = b - lr * np.mean(r)
    return np.concatenate([w, np.array([b], dtype=x.dtype)])


def _reference(inputs):
    import numpy as np

    x, y, lrs = (a.astype(np.float64) for a in inputs)
    return np.stack([_fit_np(np, x, y, lr, L2, STEPS) for lr in lrs])


def _rel_error(out, want):
    """The largest relative error of one fit (one row) against its own reference:
    pooled over the sweep, one wrong fit among n would be diluted by sqrt(n)."""
    import numpy as np

    rows = np.linalg.norm(np.asarray(out, dtype=np.float64) - want, axis=1) / np.linalg.norm(want, axis=1)
    return float(np.max(rows)) if rows.size else 0.0


def check(out, inputs, n, dtype, seed, ctx=None):
    import numpy as np

    from .. import verify as _verify

    ctx = ctx or _verify.Context(dtype)
    want = ctx.memo("reference", lambda: _reference(inputs))
    if np.shape(out) != want.shape:
        return {"ok": False, "message": f"shape {np.shape(out)}, expected {want.shape}"}, {}
    err = _rel_error(out, want)
    tol, basis = ctx.tolerance(F32_TOL if dtype == "f32" else F64_TOL,
                               lambda: _rel_error(_reference(_verify.round_tree(ctx.matmul, inputs)), want))
    verify = {"ok": err <= tol, "metric": "max_relative_error_per_fit", "error": err, "tolerance": tol,
              "tolerance_basis": basis, "reference": "float64 NumPy gradient descent, same steps and rates"}
    if "unverifiable" in basis:
        verify["message"] = basis["unverifiable"]
    elif err > tol:
        verify["message"] = f"relative error {err:.3g} exceeds {tol:.3g} ({basis['precision']} products)"
    return verify, {"fits": n, "samples": M, "features": D, "steps": STEPS}


def _build_numpy(adapter, n, dtype):
    import numpy as np

    l2 = np.float32(L2) if dtype == "f32" else L2
    return lambda x, y, lrs: np.stack([_fit_np(np, x, y, lr, l2, STEPS) for lr in lrs])


def _sweep_loops(x, xt, y, lrs, l2, steps, out):
    """numba: the same gradient descent, one fit per k (prange under numba_parallel)."""
    m = x.shape[0]
    for k in prange(lrs.shape[0]):
        lr = lrs[k]
        w = out[k, :-1]
        w[:] = 0
        b = out[k, -1] * 0
        for _ in range(steps):
            p = 1 / (1 + np.exp(-(x @ w + b)))
            r = (p - y).astype(xt.dtype)  # numba widens float32 with int literals; NumPy 2 does not
            w[:] = w - lr * (xt @ r / m + l2 * w)
            b = b - lr * np.mean(r)
        out[k, -1] = b
    return out


def _build_numba(adapter, n, dtype):
    import numpy as np

    globals()["np"] = np  # the numba function reads np from this module
    kernel = adapter.jit(_sweep_loops)
    l2 = np.float32(L2) if dtype == "f32" else L2

    def sweep(x, y, lrs):
        out = np.zeros((lrs.shape[0], x.shape[1] + 1), dtype=x.dtype)
        return kernel(x, np.ascontiguousarray(x.T), y, lrs, l2, STEPS, out)

    return sweep


def _build_jax(adapter, n, dtype):
    jax, jnp = adapter.jax, adapter.jnp

    def fit(x, y, lr):
        def step(_, wb):
            w, b = wb
            r = jax.nn.sigmoid(x @ w + b) - y
            return w - lr * (x.T @ r / x.shape[0] + L2 * w), b - lr * jnp.mean(r)

        w, b = jax.lax.fori_loop(0, STEPS, step, (jnp.zeros(x.shape[1], x.dtype), jnp.zeros((), x.dtype)))
        return jnp.concatenate([w, b[None]])

    fit_j = adapter.jit(fit)
    return lambda x, y, lrs: jnp.stack([fit_j(x, y, lrs[k]) for k in range(n)])


def _build_tensorflow(adapter, n, dtype):
    tf = adapter.tf

    def fit(x, y, lr):
        w = tf.zeros([x.shape[1]], x.dtype)
        b = tf.zeros([], x.dtype)
        for _ in tf.range(STEPS):  # autograph: a while loop inside the XLA program
            r = tf.sigmoid(tf.linalg.matvec(x, w) + b) - y
            w = w - lr * (tf.linalg.matvec(x, r, transpose_a=True) / x.shape[0] + L2 * w)
            b = b - lr * tf.reduce_mean(r)
        return tf.concat([w, b[None]], 0)

    fit_j = adapter.jit(fit)
    return lambda x, y, lrs: tf.stack([fit_j(x, y, lrs[k]) for k in range(n)])


def _build_torch(adapter, n, dtype):
    torch = adapter.torch

    def step(w, b, x, y, lr):
        r = torch.sigmoid(x @ w + b) - y
        return w - lr * (x.T @ r / x.shape[0] + L2 * w), b - lr * r.mean()

    step_c = adapter.jit(step)  # torch.compile of the step; the Python loop stays outside

    def sweep(x, y, lrs):
        fits = []
        for k in range(n):
            w = torch.zeros(x.shape[1], dtype=x.dtype, device=x.device)
            b = torch.zeros((), dtype=x.dtype, device=x.device)
            for _ in range(STEPS):
                w, b = step_c(w, b, x, y, lrs[k])
            fits.append(torch.cat([w, b[None]]))
        return torch.stack(fits)

    return sweep


IMPLEMENTATIONS = {
    "numpy": _build_numpy,
    "numba": _build_numba,
    "jax": _build_jax,
    "tensorflow": _build_tensorflow,
    "torch": _build_torch,
}
