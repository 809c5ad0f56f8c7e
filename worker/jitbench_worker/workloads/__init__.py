"""Workload registry: one file per workload, one line per workload here.

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
import os
import types

# name -> (module, variant arguments for its make() or None for a plain module,
#          one-line summary, the pair it is measured side by side in or "").
# This is jitbench's one catalog of workloads (see backends/__init__.py).
_REGISTRY = {
    "matmul": ("matmul", None, "N x N matrix product (library matmul in every backend)", ""),
    "mc_pi": ("mc_pi", None, "Monte Carlo pi from n samples, counter-based hash RNG", ""),
    "retrace_raw": ("retrace", {"bucketed": False},
                    "sum(tanh(x)^2) over 24 inputs of varying length up to n: one compile per new length", ""),
    "retrace_bucketed": ("retrace", {"bucketed": True},
                         "the same stream padded to power-of-two buckets with a mask: one compile per bucket", ""),
    "null": ("null", None, "returns a constant: measures the harness's own overhead", ""),
    "small_fits": ("small_fits", None, "a sweep of n small logistic-regression fits (16 learning rates x L2), "
                   "end to end", ""),
    "sgd_step": ("sgd_step", {"donate": False}, "jitted MLP training step, n hidden units, 20 steps", "sgd_step"),
    "sgd_step_donate": ("sgd_step", {"donate": True}, "the same step with donate_argnums on the parameters",
                        "sgd_step"),
    "per_example_vmap": ("per_example", {"vectorised": True},
                         "per-example losses of an MLP over a batch of n with vmap", "per_example_loss"),
    "per_example_loop": ("per_example", {"vectorised": False},
                         "the same losses from a Python loop over the n examples", "per_example_loss"),
    "rnn_scan": ("rnn", {"unrolled": False}, "tanh RNN over a sequence of length n with lax.scan", "rnn"),
    "rnn_unrolled": ("rnn", {"unrolled": True}, "the same RNN as a Python loop unrolled under jit", "rnn"),
    "remat_none": ("remat", {"checkpoint": False}, "gradient of a stack of n residual MLP blocks", "remat"),
    "remat_checkpoint": ("remat", {"checkpoint": True}, "the same with jax.checkpoint on every block", "remat"),
    "data_parallel_pmap": ("data_parallel", {"style": "pmap"},
                           "training step over n forced host devices, pmap + psum", "data_parallel"),
    "data_parallel_shard_map": ("data_parallel", {"style": "shard_map"}, "the same step with shard_map + psum",
                                "data_parallel"),
    "sharded_mlp": ("sharded_mlp", {"sharded": True},
                    "MLP of width n, jit + NamedSharding over a 2 x 4 (data x model) mesh", "sharded_mlp"),
    "sharded_mlp_single": ("sharded_mlp", {"sharded": False}, "the same MLP on one device", "sharded_mlp"),
    "value_and_grad_aux": ("value_and_grad", {"aux": True},
                           "value_and_grad(has_aux=True): loss, grads and metrics in one pass", "value_and_grad_aux"),
    "value_and_grad_twice": ("value_and_grad", {"aux": False}, "grad, then a second forward pass for the metrics",
                             "value_and_grad_aux"),
}

_REQUIRED = ("make_inputs", "check", "IMPLEMENTATIONS")


def names():
    return list(_REGISTRY)


def catalog():
    return [{"name": n, "summary": summary, "pair": pair} for n, (_, _, summary, pair) in _REGISTRY.items()]


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
    module_name, variant, _, _ = _REGISTRY[name]
    module = importlib.import_module(f"{__name__}.{module_name}")
    if variant is None:
        return module
    return types.SimpleNamespace(**module.make(**variant))


def env_for(workload, n: int) -> dict:
    """Environment a workload needs before any framework is imported."""
    env = dict(getattr(workload, "ENV", {}) or {})
    if getattr(workload, "ENV_FOR", None):
        env.update(workload.ENV_FOR(n))
    return env
