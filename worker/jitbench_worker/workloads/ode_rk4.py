"""A short ODE solve: n independent Lotka-Volterra predator-prey systems, each
with its own prey growth rate, integrated by classical RK4 over STEPS fixed
steps of DT, with the loop inside the compiled function (lax.fori_loop, a
numba loop, tf.while_loop via autograph, a Python loop that torch.compile
unrolls). One call is one solve; the call returns the final state (x, y).

Verification: against a float64 NumPy RK4 of the same steps (relative error
under the precision model's tolerance), and against the physics: the
Lotka-Volterra invariant V = d*x - c*ln x + b*y - a*ln y of each system
must be conserved to RK4's accuracy (drift below INVARIANT_TOL), so a solver
that merely agrees with a wrong reference cannot pass."""

from . import _nets

STEPS, DT = 64, 0.05
B, C, D = 0.4, 0.4, 0.1  # predation, predator death, predator growth (a varies per system)
INVARIANT_TOL = 1e-3     # relative drift of V over the solve (RK4 at DT: ~1e-6)
prange = range


def make_inputs(n, dtype, seed):
    import numpy as np

    rng = np.random.default_rng(seed)
    t = _nets.ftype(np, dtype)
    a = 1.0 + 0.2 * rng.random(n)
    x0 = 5.0 + 10.0 * rng.random(n)
    y0 = 2.0 + 6.0 * rng.random(n)
    return a.astype(t), x0.astype(t), y0.astype(t)


def _rhs(a, x, y):
    return a * x - B * x * y, D * x * y - C * y


def _rk4_np(np, a, x, y, steps):
    for _ in range(steps):
        k1x, k1y = _rhs(a, x, y)
        k2x, k2y = _rhs(a, x + DT / 2 * k1x, y + DT / 2 * k1y)
        k3x, k3y = _rhs(a, x + DT / 2 * k2x, y + DT / 2 * k2y)
        k4x, k4y = _rhs(a, x + DT * k3x, y + DT * k3y)
        x = x + DT / 6 * (k1x + 2 * k2x + 2 * k3x + k4x)
        y = y + DT / 6 * (k1y + 2 * k2y + 2 * k3y + k4y)
    return x, y


def _invariant(np, a, x, y):
    return D * x - C * np.log(x) + B * y - a * np.log(y)


def _reference(inputs):
    import numpy as np

    a, x, y = (np.asarray(v, np.float64) for v in inputs)
    return dict(zip(("x", "y"), _rk4_np(np, a, x, y, STEPS)))


def check(out, inputs, n, dtype, seed, ctx=None):
    import numpy as np

    got = {"x": np.asarray(out[0], np.float64), "y": np.asarray(out[1], np.float64)}
    v = _nets.judge(got, inputs, dtype, ctx, _reference, f"float64 NumPy RK4, {STEPS} steps of {DT}")
    a, x0, y0 = (np.asarray(q, np.float64) for q in inputs)
    with np.errstate(all="ignore"):
        v0, v1 = _invariant(np, a, x0, y0), _invariant(np, a, got["x"], got["y"])
        drift = float(np.max(np.abs(v1 - v0) / np.abs(v0))) if n else 0.0
    if not np.isfinite(drift) or drift > INVARIANT_TOL:
        v["ok"] = False
        v["message"] = f"the Lotka-Volterra invariant drifted by {drift:.3g} (> {INVARIANT_TOL:g}): not a solution"
    return v, {"system_steps": n * STEPS, "steps": STEPS, "invariant_drift": drift}


def _build_numpy(adapter, n, dtype):
    import numpy as np

    return lambda a, x, y: _rk4_np(np, a, x, y, STEPS)


def _rk4_loop(a, x0, y0, steps, dt, b, c, d):
    n = a.shape[0]
    x_out = x0.copy()
    y_out = y0.copy()
    h = x0.dtype.type(dt)
    half, sixth = h / 2, h / 6
    for i in prange(n):
        x, y, ai = x0[i], y0[i], a[i]
        for _ in range(steps):
            k1x, k1y = ai * x - b * x * y, d * x * y - c * y
            xa, ya = x + half * k1x, y + half * k1y
            k2x, k2y = ai * xa - b * xa * ya, d * xa * ya - c * ya
            xb, yb = x + half * k2x, y + half * k2y
            k3x, k3y = ai * xb - b * xb * yb, d * xb * yb - c * yb
            xc, yc = x + h * k3x, y + h * k3y
            k4x, k4y = ai * xc - b * xc * yc, d * xc * yc - c * yc
            x = x + sixth * (k1x + 2 * k2x + 2 * k3x + k4x)
            y = y + sixth * (k1y + 2 * k2y + 2 * k3y + k4y)
        x_out[i] = x
        y_out[i] = y
    return x_out, y_out


def _build_numba(adapter, n, dtype):
    import numpy as np

    kernel = adapter.jit(_rk4_loop)
    t = _nets.ftype(np, dtype)
    consts = tuple(t(v) for v in (DT, B, C, D))
    return lambda a, x, y: kernel(a, x, y, STEPS, *consts)


def _build_jax(adapter, n, dtype):
    jax = adapter.jax

    def solve(a, x, y):
        def body(_, state):
            return _rk4_np(None, a, *state, 1)

        return jax.lax.fori_loop(0, STEPS, body, (x, y))

    return adapter.jit(solve)


def _build_tensorflow(adapter, n, dtype):
    tf = adapter.tf

    def solve(a, x, y):
        for _ in tf.range(STEPS):  # autograph: a tf.while_loop under tf.function, a loop eagerly
            x, y = _rk4_np(None, a, x, y, 1)
        return x, y

    return adapter.jit(solve)


def _build_torch(adapter, n, dtype):
    return adapter.jit(lambda a, x, y: _rk4_np(None, a, x, y, STEPS))


IMPLEMENTATIONS = {
    "numpy": _build_numpy,
    "numba": _build_numba,
    "jax": _build_jax,
    "tensorflow": _build_tensorflow,
    "torch": _build_torch,
}
