"""Workload registry: one file per workload, one record per workload here.

A workload provides:
  make_inputs(n, dtype, seed) -> tuple of host inputs
  check(out, inputs, n, dtype, seed) -> (verify dict with "ok", info dict)
  IMPLEMENTATIONS = {framework: build(adapter, n, dtype) -> callable(*inputs)}
and optionally:
  ENV = {"VAR": "value"}   set before the framework is imported
  ENV_FOR = callable(n) -> dict, the same when it depends on the size
User workloads (docs/user-workloads.md) are files that follow the same contract.
"""

import importlib
import importlib.util
import math
import os
import types
from dataclasses import dataclass
from typing import Optional, Tuple

# This is jitbench's one catalog of workloads (see backends/__init__.py): a
# record per workload, with everything the core needs to know about it.


@dataclass(frozen=True)
class Workload:
    module: str                       # the file under workloads/
    summary: str
    variant: Optional[dict] = None    # arguments of the module's make(), None for a plain module
    pair: str = ""                    # variants measured side by side share a pair name
    # Throughput: the field of check()'s info that counts one call's work, the
    # factor that turns it into `unit`, and the unit (the table shows unit/s).
    work: Optional[Tuple[str, float, str]] = None
    ceiling: str = ""                 # the device ceiling that applies ("gemm"), "" for none
    ceiling_note: str = "no device ceiling applies to this workload"
    accuracy: str = ""                # the field of check()'s info holding an absolute error ("" for none)
    # The shard planner's model of one call on a compiled backend: coef * n^exp seconds.
    cost: Tuple[float, float] = (1e-8, 1.0)
    loop: Optional[Tuple[str, int]] = None  # a short loop: (its step's name, steps per call)
    # A user workload's own plan, for `--workload-path` alone (docs/user-workloads.md): its sizes, its
    # dtypes, and the backends it runs on (None: every backend its IMPLEMENTATIONS' frameworks run on).
    sizes: Optional[Tuple[int, ...]] = None
    dtypes: Optional[Tuple[str, ...]] = None
    backends: Optional[Tuple[str, ...]] = None
    # `jitbench measure`'s workload: the user's function as they named it, where
    # it comes from, and what each backend runs ({"function": "sgd_step", "source":
    # "mlp.py", "labels": {"jax_jit_cpu": "sgd_step with jax.jit", ...}}): what
    # summary.md and the report show in place of the workload's id.
    measured: Optional[dict] = None


_REGISTRY = {
    "matmul": Workload("matmul", "N x N matrix product (library matmul in every backend)",
                       work=("flops", 1e-9, "GFLOP"), ceiling="gemm", cost=(2e-10, 3.0)),
    "mc_pi": Workload("mc_pi", "Monte Carlo pi from n samples, counter-based hash RNG", work=("n", 1.0, "samples"),
                      ceiling_note="none applies to mc_pi (integer hashing, not FLOP or bandwidth bound)",
                      accuracy="abs_error"),
    "retrace_raw": Workload("retrace", "sum(tanh(x)^2) over 24 inputs of varying length up to n: one compile per "
                            "new length", {"bucketed": False}),
    "retrace_bucketed": Workload("retrace", "the same stream padded to power-of-two buckets with a mask: one "
                                 "compile per bucket", {"bucketed": True}),
    "null": Workload("null", "returns a constant: measures the harness's own overhead"),
    "small_fits": Workload("small_fits", "a sweep of n small logistic-regression fits (16 learning rates x L2), "
                           "end to end"),
    "sgd_step": Workload("sgd_step", "jitted MLP training step, n hidden units, 20 steps", {"donate": False},
                         "sgd_step"),
    "sgd_step_donate": Workload("sgd_step", "the same step with donate_argnums on the parameters", {"donate": True},
                                "sgd_step"),
    "per_example_vmap": Workload("per_example", "per-example losses of an MLP over a batch of n with vmap",
                                 {"vectorised": True}, "per_example_loss"),
    "per_example_loop": Workload("per_example", "the same losses from a Python loop over the n examples",
                                 {"vectorised": False}, "per_example_loss"),
    "rnn_scan": Workload("rnn", "tanh RNN over a sequence of length n with lax.scan", {"unrolled": False}, "rnn"),
    "rnn_unrolled": Workload("rnn", "the same RNN as a Python loop unrolled under jit", {"unrolled": True}, "rnn"),
    "remat_none": Workload("remat", "gradient of a stack of n residual MLP blocks", {"checkpoint": False}, "remat"),
    "remat_checkpoint": Workload("remat", "the same with jax.checkpoint on every block", {"checkpoint": True},
                                 "remat"),
    "data_parallel_pmap": Workload("data_parallel", "training step over n forced host devices, pmap + psum",
                                   {"style": "pmap"}, "data_parallel"),
    "data_parallel_shard_map": Workload("data_parallel", "the same step with shard_map + psum",
                                        {"style": "shard_map"}, "data_parallel"),
    "sharded_mlp": Workload("sharded_mlp", "MLP of width n, jit + NamedSharding over a 2 x 4 (data x model) mesh",
                            {"sharded": True}, "sharded_mlp"),
    "sharded_mlp_single": Workload("sharded_mlp", "the same MLP on one device", {"sharded": False}, "sharded_mlp"),
    "value_and_grad_aux": Workload("value_and_grad", "value_and_grad(has_aux=True): loss, grads and metrics in one "
                                   "pass", {"aux": True}, "value_and_grad_aux"),
    "value_and_grad_twice": Workload("value_and_grad", "grad, then a second forward pass for the metrics",
                                     {"aux": False}, "value_and_grad_aux"),
    # The short loops (suites/loops.toml): one call is a whole short training, fit or solve.
    "mlp_train": Workload("mlp_train", "10 Adam steps of a 2-layer tanh MLP (n hidden) on a fixed batch, loss curve "
                          "verified", work=("steps", 1.0, "steps"), cost=(2e-6, 1.0), loop=("Adam step", 10)),
    "likelihood_fit": Workload("likelihood_fit", "binned Poisson likelihood, signal strength + n Gaussian-"
                               "constrained bin modifiers: 8 Newton steps with autodiff gradients",
                               work=("fits", 1.0, "fits"), cost=(1e-5, 1.0), loop=("fit", 1)),
    "ode_rk4": Workload("ode_rk4", "RK4, 64 fixed steps of n Lotka-Volterra systems, the loop inside the compiled "
                        "function", work=("system_steps", 1.0, "system-steps"), cost=(1e-7, 1.0),
                        loop=("solve", 1)),
    "transformer_block": Workload("transformer_block", "forward + backward of one pre-norm attention + MLP block, "
                                  "sequence length n, width 64", work=("steps", 1.0, "steps"), cost=(1e-5, 1.0),
                                  loop=("fwd+bwd step", 1)),
}

_REQUIRED = ("make_inputs", "check", "IMPLEMENTATIONS")


def names():
    return list(_REGISTRY)


def record_json(name: str, w: Workload, path: str = ""):
    """A workload's catalog record as the C++ side reads it."""
    work = None if w.work is None else {"field": w.work[0], "scale": w.work[1], "unit": w.work[2]}
    loop = None if w.loop is None else {"step": w.loop[0], "steps": w.loop[1]}
    out = {"name": name, "summary": w.summary, "pair": w.pair, "work": work, "ceiling": w.ceiling,
           "ceiling_note": w.ceiling_note, "accuracy": w.accuracy,
           "cost": {"coefficient": w.cost[0], "exponent": w.cost[1]}, "loop": loop, "path": path}
    for key in ("sizes", "dtypes", "backends"):  # a user file's plan, when its CATALOG gives one
        if getattr(w, key) is not None:
            out[key] = list(getattr(w, key))
    if w.measured is not None:
        out["measured"] = _measured_record(w.measured)
    return out


def _measured_record(m):
    """CATALOG's measured, checked: what tables show must be text."""
    if not isinstance(m, dict) or not isinstance(m.get("function"), str) or not isinstance(m.get("source"), str) \
            or not isinstance(m.get("labels", {}), dict) \
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in m.get("labels", {}).items()):
        raise ValueError("CATALOG measured must be {'function': str, 'source': str, 'labels': {backend: str}}")
    return {"function": m["function"], "source": m["source"], "labels": dict(m.get("labels", {}))}


def catalog():
    return [record_json(n, w) for n, w in _REGISTRY.items()]


def record(name: str, path: str = None, module=None):
    """The catalog record of a built-in workload, or of a user workload's file
    (its optional CATALOG dict holds the same fields as Workload, bar module
    and variant); `module`: the file already loaded, not executed again."""
    if not path:
        if name not in _REGISTRY:
            raise ValueError(f"unknown workload {name!r}; valid: {', '.join(_REGISTRY)}")
        return record_json(name, _REGISTRY[name])
    module = module or _from_file(name, path)
    fields = dict(getattr(module, "CATALOG", {}) or {})
    fields.setdefault("summary", f"user workload from {path}")
    unknown = set(fields) - set(Workload.__dataclass_fields__) | ({"module", "variant"} & set(fields))
    if unknown:
        raise ValueError(f"workload file {path}: CATALOG has unknown fields {', '.join(sorted(unknown))} "
                         "(see docs/user-workloads.md)")
    for key in ("work", "cost", "loop", "sizes", "dtypes", "backends"):
        if fields.get(key) is not None:
            fields[key] = tuple(fields[key])
    _check_numbers(path, fields)
    _check_plan(path, fields)
    out = record_json(name, Workload(module="", **fields), path)
    out["frameworks"] = [str(k) for k in module.IMPLEMENTATIONS]  # what `--workload-path` alone plans it on
    return out


# What a user's CATALOG numbers may be: the shard planner multiplies the cost
# out (a negative or huge one skews every shard), the loop's steps are counted.
# src/config/catalog.cc (in_range) checks the same ranges again on every record
# it reads: change both together.
_COST_COEFFICIENT = (0.0, 1e3)   # seconds per unit of n**exponent, above 0
_COST_EXPONENT = (0.0, 4.0)
_WORK_SCALE = (0.0, 1e15)        # above 0
_LOOP_STEPS = (1, 10**9)


def _check_numbers(path, fields):
    """Raises ValueError naming the first CATALOG field out of its range."""
    def number(key, what, value, lo, hi, open_low=False, integer=False):
        ok_type = isinstance(value, int) if integer else isinstance(value, (int, float))
        try:
            finite = ok_type and not isinstance(value, bool) and math.isfinite(value)
        except OverflowError:  # an int past what a float holds (10**400)
            finite = False
        if not finite or value > hi or (value <= lo if open_low else value < lo):
            kind = "a whole number" if integer else "a finite number"
            raise ValueError(f"workload file {path}: CATALOG {key}: {what} must be {kind} in "
                             f"{'(' if open_low else '['}{lo:g}, {hi:g}], not {value!r}")

    def pair(key, size):
        value = fields.get(key)
        if value is not None and len(value) != size:
            raise ValueError(f"workload file {path}: CATALOG {key} must have {size} items, not {len(value)}")
        return value

    if (cost := pair("cost", 2)) is not None:
        number("cost", "its coefficient", cost[0], *_COST_COEFFICIENT, open_low=True)
        number("cost", "its exponent", cost[1], *_COST_EXPONENT)
    if (work := pair("work", 3)) is not None:
        number("work", "its scale", work[1], *_WORK_SCALE, open_low=True)
    if (loop := pair("loop", 2)) is not None:
        number("loop", "its steps per call", loop[1], *_LOOP_STEPS, integer=True)


_SIZES = (1, 10**12)
_DTYPES = ("f32", "f64")


def _check_plan(path, fields):
    """Raises ValueError naming the first of CATALOG's sizes, dtypes and
    backends that is not a plan jitbench can make."""
    for key in ("sizes", "dtypes", "backends"):
        value = fields.get(key)
        if value is not None and not value:
            raise ValueError(f"workload file {path}: CATALOG {key} is empty: leave it out for the default, "
                             "or list at least one")
    for n in fields.get("sizes") or ():
        if not isinstance(n, int) or isinstance(n, bool) or not _SIZES[0] <= n <= _SIZES[1]:
            raise ValueError(f"workload file {path}: CATALOG sizes: each must be a whole number in "
                             f"[{_SIZES[0]}, {_SIZES[1]:.0e}], not {n!r}")
    for d in fields.get("dtypes") or ():
        if d not in _DTYPES:
            raise ValueError(f"workload file {path}: CATALOG dtypes: {d!r} is not one of {', '.join(_DTYPES)}")
    for b in fields.get("backends") or ():
        if not isinstance(b, str):
            raise ValueError(f"workload file {path}: CATALOG backends: {b!r} is not a backend name")


def _from_file(name: str, path: str):
    if os.path.splitext(os.path.basename(path))[0] != name:
        raise ValueError(f"workload {name!r} does not match the file name of {path}")
    spec = importlib.util.spec_from_file_location(f"jitbench_user_workload_{name}", path)
    if spec is None or spec.loader is None:
        raise ValueError(f"cannot load workload file {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    missing = [a for a in _REQUIRED if not hasattr(module, a)]
    if missing:
        raise ValueError(f"workload file {path} lacks {', '.join(missing)} (see docs/user-workloads.md)")
    if not isinstance(module.IMPLEMENTATIONS, dict):
        raise ValueError(f"workload file {path}: IMPLEMENTATIONS must be a dict {{framework: build}}")
    return module


def get(name: str, path: str = None):
    if path:
        return _from_file(name, path)
    if name not in _REGISTRY:
        raise ValueError(f"unknown workload {name!r}; valid: {', '.join(_REGISTRY)}")
    w = _REGISTRY[name]
    module = importlib.import_module(f"{__name__}.{w.module}")
    if w.variant is None:
        return module
    return types.SimpleNamespace(**module.make(**w.variant))


def env_for(workload, n: int) -> dict:
    """Environment a workload needs before any framework is imported."""
    env = dict(getattr(workload, "ENV", {}) or {})
    if getattr(workload, "ENV_FOR", None):
        env.update(workload.ENV_FOR(n))
    return env
