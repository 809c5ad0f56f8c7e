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

# name -> (module, variant arguments for its make(), or None for a plain module)
_REGISTRY = {
    "matmul": ("matmul", None),
    "mc_pi": ("mc_pi", None),
    "retrace_raw": ("retrace", {"bucketed": False}),
    "retrace_bucketed": ("retrace", {"bucketed": True}),
    "null": ("null", None),
    "small_fits": ("small_fits", None),
    "sgd_step": ("sgd_step", {"donate": False}),
    "sgd_step_donate": ("sgd_step", {"donate": True}),
    "per_example_vmap": ("per_example", {"vectorised": True}),
    "per_example_loop": ("per_example", {"vectorised": False}),
    "rnn_scan": ("rnn", {"unrolled": False}),
    "rnn_unrolled": ("rnn", {"unrolled": True}),
    "remat_none": ("remat", {"checkpoint": False}),
    "remat_checkpoint": ("remat", {"checkpoint": True}),
    "data_parallel_pmap": ("data_parallel", {"style": "pmap"}),
    "data_parallel_shard_map": ("data_parallel", {"style": "shard_map"}),
    "sharded_mlp": ("sharded_mlp", {"sharded": True}),
    "sharded_mlp_single": ("sharded_mlp", {"sharded": False}),
    "value_and_grad_aux": ("value_and_grad", {"aux": True}),
    "value_and_grad_twice": ("value_and_grad", {"aux": False}),
}

_REQUIRED = ("make_inputs", "check", "IMPLEMENTATIONS")


def names():
    return list(_REGISTRY)


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
    module_name, variant = _REGISTRY[name]
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
