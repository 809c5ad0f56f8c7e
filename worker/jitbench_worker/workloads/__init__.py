"""Workload registry: one file per workload, one line per workload here.

A workload provides:
  make_inputs(n, dtype, seed) -> tuple of host inputs
  check(out, inputs, n, dtype, seed) -> (verify dict with "ok", info dict)
  IMPLEMENTATIONS = {framework: build(adapter, n, dtype) -> callable(*inputs)}
"""

import importlib
import types

# name -> (module, variant arguments for its make(), or None for a plain module)
_REGISTRY = {
    "matmul": ("matmul", None),
    "mc_pi": ("mc_pi", None),
    "retrace_raw": ("retrace", {"bucketed": False}),
    "retrace_bucketed": ("retrace", {"bucketed": True}),
    "null": ("null", None),
}


def names():
    return list(_REGISTRY)


def get(name: str):
    if name not in _REGISTRY:
        raise ValueError(f"unknown workload {name!r}; valid: {', '.join(_REGISTRY)}")
    module_name, variant = _REGISTRY[name]
    module = importlib.import_module(f"{__name__}.{module_name}")
    if variant is None:
        return module
    make_inputs, check, impls = module.make(**variant)
    return types.SimpleNamespace(make_inputs=make_inputs, check=check, IMPLEMENTATIONS=impls)
