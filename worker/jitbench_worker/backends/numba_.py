"""numba.njit(cache=True): compiled at the first call, cached on disk in the
directory jitbench owns (NUMBA_CACHE_DIR is read when numba is imported).

numba_parallel adds parallel=True: workload loops written with `prange` (a plain
`range` in every other backend) are split over NUMBA_NUM_THREADS threads."""

import types

from .base import Adapter, import_or_missing


class NumbaAdapter(Adapter):
    name = "numba"
    package = "numba"
    framework = "numba"
    has_compile_cache = True
    phase_names = ("typing_lowering", "llvm")

    def import_framework(self, dtype, cache_dir):
        if cache_dir:
            self.set_env("NUMBA_CACHE_DIR", cache_dir)
            self._cache = {"kind": "numba", "dir": cache_dir, "cache": True}
        self.numba = import_or_missing("numba", "numba")
        import numpy

        self.np = numpy
        self._dispatchers = []
        self._hooks = _install_numba_hooks(self.recorder)

    def start_recording(self):
        self._stats_before = self._cache_stats()
        self.recorder.start()

    def stop_recording(self):
        rec = self.recorder.stop()
        # numba:compile covers typing, lowering and LLVM; llvm_lock the LLVM part.
        compile_s = rec["phases"].pop("compile", 0.0)
        llvm_s = rec["phases"].pop("llvm", 0.0)
        rec["phases"] = {"typing_lowering": max(compile_s - llvm_s, 0.0), "llvm": llvm_s} if compile_s else {}
        after = self._cache_stats()
        rec["cache"] = {k: after[k] - self._stats_before[k] for k in after}
        return rec

    def _cache_stats(self):
        hits = sum(sum(d.stats.cache_hits.values()) for d in self._dispatchers)
        misses = sum(sum(d.stats.cache_misses.values()) for d in self._dispatchers)
        return {"hits": hits, "misses": misses}

    def prepare_warm_process(self):
        self.jit(self.fresh(_decoy))(3)

    def init_device(self):
        self.np.zeros(1).sum()

    parallel = False

    def jit(self, fn):
        if self.parallel:
            # The workload module binds prange to range; here it is numba's.
            fn = types.FunctionType(fn.__code__, {**fn.__globals__, "prange": self.numba.prange},
                                    fn.__name__, fn.__defaults__, fn.__closure__)
        d = self.numba.njit(cache=self._cache.get("cache", False), parallel=self.parallel)(fn)
        self._dispatchers.append(d)
        return d

    def info(self):
        import llvmlite

        return {
            "name": self.name,
            "version": self.numba.__version__,
            "llvmlite": llvmlite.__version__,
            "threading_layer_env": self.numba.config.THREADING_LAYER,
            "num_threads": self.numba.config.NUMBA_NUM_THREADS,
            "parallel": self.parallel,
            "threading_layer": _threading_layer(self.numba) if self.parallel else None,
        }


class NumbaParallelAdapter(NumbaAdapter):
    name = "numba_parallel"
    parallel = True


def _threading_layer(numba):
    try:  # only known once a parallel function has run
        return numba.threading_layer()
    except ValueError:
        return None


def _decoy(n):
    total = 0
    for i in range(n):
        total += i * i
    return total


def _install_numba_hooks(recorder):
    """Outermost-only timers for numba's compile and LLVM events (they nest)."""
    import time

    from numba.core import event

    class DepthTimer(event.Listener):
        def __init__(self, phase):
            self.phase, self.depth, self.t0 = phase, 0, 0.0

        def on_start(self, ev):
            if self.depth == 0:
                self.t0 = time.perf_counter()
            self.depth += 1

        def on_end(self, ev):
            self.depth -= 1
            if self.depth == 0:
                recorder.add(self.phase, time.perf_counter() - self.t0)
                if self.phase == "compile":
                    recorder.count("compiles")

    hooks = [("numba:compile", DepthTimer("compile")), ("numba:llvm_lock", DepthTimer("llvm"))]
    for kind, listener in hooks:
        event.register(kind, listener)
    return hooks
