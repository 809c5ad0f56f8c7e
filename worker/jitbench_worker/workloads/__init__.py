"""Workload registry: one file per workload, one line per workload here.

A workload module provides:
  make_inputs(n, dtype, seed) -> tuple of host inputs
  check(out, inputs, n, dtype, seed) -> (verify dict with "ok", info dict)
  IMPLEMENTATIONS = {framework: build(adapter, n, dtype) -> callable(*inputs)}
"""

import importlib

_NAMES = ["matmul", "mc_pi"]


def names():
    return list(_NAMES)


def get(name: str):
    if name not in _NAMES:
        raise ValueError(f"unknown workload {name!r}; valid: {', '.join(_NAMES)}")
    return importlib.import_module(f"{__name__}.{name}")
