"""numba.njit(cache=True): compiled at the first call, cached on disk in the
directory jitbench owns (NUMBA_CACHE_DIR is read when numba is imported)."""

from .base import Adapter, import_or_missing


class NumbaAdapter(Adapter):
    name = "numba"
    package = "numba"
    framework = "numba"

    def import_framework(self, dtype, cache_dir):
        if cache_dir:
            self.set_env("NUMBA_CACHE_DIR", cache_dir)
            self._cache = {"kind": "numba", "dir": cache_dir, "cache": True}
        self.numba = import_or_missing("numba", "numba")
        import numpy

        self.np = numpy

    def init_device(self):
        self.np.zeros(1).sum()

    def jit(self, fn):
        return self.numba.njit(cache=self._cache.get("cache", False))(fn)

    def info(self):
        import llvmlite

        return {
            "name": self.name,
            "version": self.numba.__version__,
            "llvmlite": llvmlite.__version__,
            "threading_layer_env": self.numba.config.THREADING_LAYER,
            "num_threads": self.numba.config.NUMBA_NUM_THREADS,
        }
