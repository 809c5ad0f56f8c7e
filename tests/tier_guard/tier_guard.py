"""Records every framework a process imports, for the quick test tier.

scripts/test.sh --quick runs the tests that need nothing beyond numpy. A test
classified quick that starts a real JAX, numba, TensorFlow, torch or Triton
anyway (in pytest's own process or in a worker process jitbench starts) would
make the tier slow without anyone noticing: this module, imported by
`sitecustomize` in every Python process of a quick run (tests/tiers.py puts
this folder first on PYTHONPATH), appends one line per such import to the file
named by JITBENCH_TEST_TIER_LOG, and tests/tiers.py fails the test that caused
it. It records; it never changes what is imported. An import of a framework
that is not installed is no cost and is not recorded.
"""

import importlib.abc
import importlib.machinery
import os
import sys

GUARDED = ("jax", "jaxlib", "numba", "llvmlite", "tensorflow", "torch", "triton")


class _LoggingLoader:
    """The framework's own loader; executing the module writes the line first."""

    def __init__(self, loader, log):
        self._loader, self._log = loader, log

    def __getattr__(self, attr):
        return getattr(self._loader, attr)

    def exec_module(self, module):
        line = f"{module.__name__} pid {os.getpid()}: {' '.join(sys.argv)[:300]}\n"
        fd = os.open(self._log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode(errors="replace"))
        finally:
            os.close(fd)
        module.__loader__ = module.__spec__.loader = self._loader  # what the package would have seen
        self._loader.exec_module(module)


class FrameworkImportLog(importlib.abc.MetaPathFinder):
    """Finds a guarded top-level package as the usual finders would, and logs
    its import when it is executed (importlib.util.find_spec alone logs nothing)."""

    def __init__(self, log):
        self.log = log

    def find_spec(self, name, path=None, target=None):
        if name not in GUARDED:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _LoggingLoader(spec.loader, self.log)
        return spec


def install(log):
    if not any(isinstance(f, FrameworkImportLog) for f in sys.meta_path):
        sys.meta_path.insert(0, FrameworkImportLog(log))
