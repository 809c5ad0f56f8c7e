"""A small fit of the kind HistFactory models need, repeated in every scan:
a binned Poisson likelihood over n bins with a signal strength mu and one
Gaussian-constrained modifier gamma_b per bin (n nuisance parameters):

  lambda_b = mu * s_b + gamma_b * b_b
  NLL = sum_b (lambda_b - d_b ln lambda_b) + sum_b (gamma_b - 1)^2 / (2 sigma_b^2)

One call is one fit: NEWTON_STEPS Newton steps from mu = 1, gamma = 1, the
gradient by the framework's automatic differentiation (NumPy, which has none,
by hand) and the Newton system solved in closed form (the Hessian is an arrow:
mu couples to every bin, the bins to nothing else). Every backend runs the same
number of steps; the call returns (mu, gamma, NLL).

Verification: against a float64 SciPy fit of the same model (trust-exact with
exact derivatives, to a gradient norm of 1e-10): mu, the gammas and the NLL
each within the precision model's tolerance on its own scale (each its own
relative error: pooled, the NLL's magnitude would hide a wrong mu), and
convergence: the gradient of the float64 NLL at the returned parameters must
be small."""

from . import _nets

NEWTON_STEPS = 8
SIGNAL, SIGMA = 20.0, 0.1
GRAD_TOL = {"f32": 5e-2, "f64": 1e-6}  # |grad NLL| at the result, float64, relative to the counts' scale


def make_inputs(n, dtype, seed):
    import numpy as np

    rng = np.random.default_rng(seed)
    t = _nets.ftype(np, dtype)
    x = (np.arange(n) + 0.5) / max(n, 1)
    s = SIGNAL * np.exp(-0.5 * ((x - 0.5) / 0.1) ** 2) + 0.5
    b = 50.0 + 100.0 * np.exp(-3.0 * x)
    gamma_true = 1.0 + SIGMA * rng.standard_normal(n)
    d = rng.poisson(s + gamma_true * b).astype(np.float64)
    sigma = np.full(n, SIGMA)
    return s.astype(t), b.astype(t), d.astype(t), sigma.astype(t)


def _sum(v):
    return v.sum()


def _nll(xp_log, mu, gamma, s, b, d, sigma, total=_sum):
    lam = mu * s + gamma * b
    return total(lam - d * xp_log(lam)) + total(((gamma - 1.0) / sigma) ** 2) / 2


def _newton_step(mu, gamma, g_mu, g_gamma, s, b, d, sigma, total=_sum):
    """One Newton step with the arrow Hessian in closed form (any array module;
    `total` sums an array: TensorFlow's tensors have no .sum())."""
    lam = mu * s + gamma * b
    w = d / (lam * lam)
    h_mm = total(w * s * s)
    h_mg = w * s * b
    h_gg = w * b * b + 1.0 / (sigma * sigma)
    d_mu = (g_mu - total(h_mg * g_gamma / h_gg)) / (h_mm - total(h_mg * h_mg / h_gg))
    d_gamma = (g_gamma - h_mg * d_mu) / h_gg
    return mu - d_mu, gamma - d_gamma


def _grad_np(mu, gamma, s, b, d, sigma):
    lam = mu * s + gamma * b
    r = 1.0 - d / lam
    return (r * s).sum(), r * b + (gamma - 1.0) / (sigma * sigma)


def _reference(inputs):
    import numpy as np
    from scipy.optimize import minimize

    s, b, d, sigma = (np.asarray(v, np.float64) for v in inputs)
    n = s.shape[0]

    def f(p):
        return float(_nll(np.log, p[0], p[1:], s, b, d, sigma))

    def jac(p):
        g_mu, g_gamma = _grad_np(p[0], p[1:], s, b, d, sigma)
        return np.concatenate([[g_mu], g_gamma])

    def hess(p):
        lam = p[0] * s + p[1:] * b
        w = d / lam ** 2
        h = np.zeros((n + 1, n + 1))
        h[0, 0] = np.sum(w * s * s)
        h[0, 1:] = h[1:, 0] = w * s * b
        h[np.arange(1, n + 1), np.arange(1, n + 1)] = w * b * b + 1 / sigma ** 2
        return h

    res = minimize(f, np.ones(n + 1), jac=jac, hess=hess, method="trust-exact", options={"gtol": 1e-10})
    return {"mu": np.array([res.x[0]]), "gamma": res.x[1:], "nll": np.array([res.fun])}


def check(out, inputs, n, dtype, seed, ctx=None):
    import numpy as np

    mu, gamma, nll = (np.asarray(v, np.float64) for v in out)
    got = {"mu": mu.reshape(1), "gamma": gamma.reshape(-1), "nll": nll.reshape(1)}
    # Each gamma is a parameter of its own (a bin's modifier): judged on its own scale, so that one wrong
    # modifier is not averaged away by the n - 1 right ones (a pooled norm of 16 passes one off by 4x the tolerance).
    v = _nets.judge(got, inputs, dtype, ctx, _reference,
                    "float64 SciPy fit (trust-exact, exact gradient and Hessian, gtol 1e-10)", elementwise=("gamma",))
    s, b, d, sigma = (np.asarray(q, np.float64) for q in inputs)
    g_mu, g_gamma = _grad_np(got["mu"][0], got["gamma"], s, b, d, sigma)
    grad = float(np.sqrt(g_mu ** 2 + np.sum(g_gamma ** 2)))
    if not np.isfinite(grad) or grad > GRAD_TOL[dtype] * np.sqrt(n + 1):
        v["ok"] = False
        v["message"] = f"not converged: |grad NLL| = {grad:.3g} at the returned parameters"
    return v, {"fits": 1, "newton_steps": NEWTON_STEPS, "mu": float(got["mu"][0]), "grad_norm": grad}


def _build_numpy(adapter, n, dtype):
    import numpy as np

    def fit(s, b, d, sigma):
        mu, gamma = s.dtype.type(1.0), np.ones_like(s)
        for _ in range(NEWTON_STEPS):
            g_mu, g_gamma = _grad_np(mu, gamma, s, b, d, sigma)
            mu, gamma = _newton_step(mu, gamma, g_mu, g_gamma, s, b, d, sigma)
        return mu, gamma, _nll(np.log, mu, gamma, s, b, d, sigma)

    return fit


def _build_jax(adapter, n, dtype):
    jax, jnp = adapter.jax, adapter.jnp
    grad = jax.grad(lambda mu, gamma, *data: _nll(jnp.log, mu, gamma, *data), argnums=(0, 1))

    def fit(s, b, d, sigma):
        mu, gamma = jnp.ones((), s.dtype), jnp.ones_like(s)
        for _ in range(NEWTON_STEPS):
            g_mu, g_gamma = grad(mu, gamma, s, b, d, sigma)
            mu, gamma = _newton_step(mu, gamma, g_mu, g_gamma, s, b, d, sigma)
        return mu, gamma, _nll(jnp.log, mu, gamma, s, b, d, sigma)

    return adapter.jit(fit)


def _build_tensorflow(adapter, n, dtype):
    tf = adapter.tf
    total, log = tf.reduce_sum, tf.math.log

    def fit(s, b, d, sigma):
        mu, gamma = tf.ones((), s.dtype), tf.ones_like(s)
        for _ in range(NEWTON_STEPS):  # a Python range: unrolled under tf.function, like the others
            with tf.GradientTape() as tape:
                tape.watch([mu, gamma])
                nll = _nll(log, mu, gamma, s, b, d, sigma, total)
            g_mu, g_gamma = tape.gradient(nll, [mu, gamma])
            mu, gamma = _newton_step(mu, gamma, g_mu, g_gamma, s, b, d, sigma, total)
        return mu, gamma, _nll(log, mu, gamma, s, b, d, sigma, total)

    return adapter.jit(fit)


def _build_torch(adapter, n, dtype):
    torch = adapter.torch

    def fit(s, b, d, sigma):
        mu, gamma = torch.ones((), dtype=s.dtype, device=s.device), torch.ones_like(s)
        for _ in range(NEWTON_STEPS):
            with torch.enable_grad():
                p_mu, p_gamma = mu.detach().requires_grad_(), gamma.detach().requires_grad_()
                nll = _nll(torch.log, p_mu, p_gamma, s, b, d, sigma)
                g_mu, g_gamma = torch.autograd.grad(nll, (p_mu, p_gamma))
            mu, gamma = _newton_step(mu, gamma, g_mu, g_gamma, s, b, d, sigma)
        return mu, gamma, _nll(torch.log, mu, gamma, s, b, d, sigma)

    return adapter.jit(fit)


IMPLEMENTATIONS = {
    "numpy": _build_numpy,
    "jax": _build_jax,
    "tensorflow": _build_tensorflow,
    "torch": _build_torch,
}
