"""Shared pieces of the JAX transform workloads: deterministic parameters and
inputs built on the host, and float64 NumPy references (forward passes and
hand-written backward passes) that every result is checked against.

The nets are small tanh MLPs with a mean-squared-error loss:
  h = tanh(x W1 + b1);  y = h W2 + b2;  loss = mean((y - t)^2) / 2
"""

from .. import verify as _verify

# IEEE float32 after a few dozen steps/blocks: errors land near 1e-7 (3e-5 for
# remat over 256 blocks); TF32/bf16 products get a tolerance from the problem's
# own sensitivity (verify.Context.tolerance).
F32_REL_TOL = 2e-3
F64_REL_TOL = 1e-9


def ftype(np, dtype):
    return np.float32 if dtype == "f32" else np.float64


def mlp_params(rng, d_in, hidden, d_out, t):
    import numpy as np

    return {
        "w1": (rng.standard_normal((d_in, hidden)) / np.sqrt(d_in)).astype(t),
        "b1": np.zeros(hidden, dtype=t),
        "w2": (rng.standard_normal((hidden, d_out)) / np.sqrt(hidden)).astype(t),
        "b2": np.zeros(d_out, dtype=t),
    }


def mlp_problem(seed, dtype, batch, d_in, hidden, d_out):
    """(params, x, y) of a regression problem: parameters drawn first, then the batch."""
    import numpy as np

    rng = np.random.default_rng(seed)
    t = ftype(np, dtype)
    p = mlp_params(rng, d_in, hidden, d_out, t)
    return p, rng.standard_normal((batch, d_in)).astype(t), rng.standard_normal((batch, d_out)).astype(t)


def problem64(inputs):
    """The (params, x, y) inputs of mlp_problem in float64, for the references."""
    import numpy as np

    p, x, y = inputs
    return as64(p), x.astype(np.float64), y.astype(np.float64)


def sgd_reference(inputs, steps, lr):
    """float64 full-batch SGD from the inputs' parameters: the parameters after `steps` steps."""
    p, x, y = problem64(inputs)
    for _ in range(steps):
        _, g = mlp_loss_and_grads_np(p, x, y)
        p = {k: p[k] - lr * g[k] for k in p}
    return p


def as64(tree):
    import numpy as np

    return {k: np.asarray(v, dtype=np.float64) for k, v in tree.items()}


def mlp_forward(xp, p, x):
    h = xp.tanh(x @ p["w1"] + p["b1"])
    return h @ p["w2"] + p["b2"], h


def mse(xp, y, t):
    return xp.mean((y - t) ** 2) / 2


def mlp_loss_and_grads_np(p, x, t):
    """float64 loss and gradients of the MLP, by hand."""
    import numpy as np

    y, h = mlp_forward(np, p, x)
    diff = y - t
    loss = float(np.mean(diff ** 2) / 2)
    dy = diff / diff.size
    g = {"w2": h.T @ dy, "b2": dy.sum(0)}
    dz = (dy @ p["w2"].T) * (1 - h ** 2)
    g["w1"] = x.T @ dz
    g["b1"] = dz.sum(0)
    return loss, g


def rel_error(got, want):
    """Relative Frobenius error of one quantity (an array) against its reference."""
    import numpy as np

    num = float(np.sum((np.asarray(got, np.float64) - want) ** 2))
    den = float(np.sum(np.asarray(want) ** 2))
    return (num / den) ** 0.5 if den > 0 else num ** 0.5


def elementwise_rel_error(got, want):
    """The largest relative error of any one element, each against its own
    reference value: a vector of separate parameters (a fit's gammas), where one
    wrong element must not be averaged away by the right ones around it."""
    import numpy as np

    g, w = np.asarray(got, np.float64).reshape(-1), np.asarray(want, np.float64).reshape(-1)
    if w.size == 0:
        return 0.0
    err = np.abs(g - w) / np.maximum(np.abs(w), np.finfo(np.float64).tiny)
    return float(np.max(np.where(g == w, 0.0, err)))


def quantity_errors(got, want, elementwise=()):
    """{quantity: relative error}, each quantity (each leaf of a dict) on its own
    scale: pooled into one norm, a large quantity (an NLL of -5000, a loss curve)
    would hide a wrong small one (a signal strength off by 1%). The quantities
    named in `elementwise` are vectors of separate parameters: their error is
    the largest of their elements' own relative errors (elementwise_rel_error)."""
    if isinstance(want, dict):
        return {k: (elementwise_rel_error if k in elementwise else rel_error)(got[k], want[k]) for k in want}
    return {"output": rel_error(got, want)}


def max_rel_error(got, want, elementwise=()):
    """The largest of quantity_errors: every quantity must be within the tolerance."""
    return max(quantity_errors(got, want, elementwise).values(), default=0.0)


def judge(out, inputs, dtype, ctx, reference, text, error=None, elementwise=()):
    """Verdict on out against reference(inputs) (float64), under the tolerance of
    the format the matmuls were computed in. reference takes the inputs as given
    (in their dtype) and must not modify them. Without an `error`, each quantity
    (each key of a dict output) is judged on its own scale and the verdict names
    the worst one; those named in `elementwise` element by element."""
    ctx = ctx or _verify.Context(dtype)
    want = ctx.memo("reference", lambda: reference(inputs))
    per = None if error else quantity_errors(out, want, elementwise)
    err = max(per.values(), default=0.0) if per is not None else error(out, want)
    error = error or (lambda got, ref: max_rel_error(got, ref, elementwise))
    ieee = F32_REL_TOL if dtype == "f32" else F64_REL_TOL
    tol, basis = ctx.tolerance(ieee, lambda: error(reference(_verify.round_tree(ctx.matmul, inputs)), want))
    v = {"ok": bool(err <= tol), "metric": "relative_error", "error": err, "tolerance": tol,
         "tolerance_basis": basis, "reference": text}
    worst = ""
    if per is not None and len(per) > 1:
        v["per_quantity"] = per
        worst = " of " + max(per, key=per.get)
    if "unverifiable" in basis:
        v["message"] = basis["unverifiable"]
    elif not v["ok"]:
        v["message"] = f"relative error{worst} {err:.3g} exceeds {tol:.3g} ({basis['precision']} products)"
    return v


def to_host(tree):
    import numpy as np

    if isinstance(tree, dict):
        return {k: np.asarray(v) for k, v in tree.items()}
    return np.asarray(tree)


def compiled_memory(adapter, fn, args):
    """XLA's own accounting of a jitted function's buffers (bytes), from an
    extra lower+compile made after the clock stopped; None where unavailable."""
    try:
        m = fn.lower(*args).compile().memory_analysis()
    except Exception:
        return None
    if m is None:
        return None
    keys = ("temp_size_in_bytes", "argument_size_in_bytes", "output_size_in_bytes", "generated_code_size_in_bytes")
    return {k: int(getattr(m, k)) for k in keys if hasattr(m, k)}
