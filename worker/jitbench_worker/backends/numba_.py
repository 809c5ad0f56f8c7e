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
    phase_names = ("target_init", "typing_lowering", "llvm", "cache_load", "cache_save")
    phase_sources = {
        "target_init": "wrapped functions: numba's typing and target context refresh() (outermost), which installs "
                       "the target's registries the first time; it runs inside a compile and inside a cache load alike",
        "typing_lowering": "framework events: outermost numba:compile minus numba:llvm_lock and target_init",
        "llvm": "framework event numba:llvm_lock (outermost)",
        "cache_load": "wrapped function: the dispatcher's cache._load_overload (the load itself, without "
                      "target_init)",
        "cache_save": "wrapped function: the dispatcher's cache.save_overload",
    }

    def import_framework(self, dtype, cache_dir, cache_policy="cold_cache"):
        # numba's default is njit without cache=True: nothing is read or written.
        self._cache = {"kind": "numba", "persistent": False, "cache": False,
                       "note": "numba's default: njit without cache=True"}
        if cache_dir and cache_policy == "warm_cache":
            self.set_env("NUMBA_CACHE_DIR", cache_dir)  # read when numba is imported
            self._cache = {"kind": "numba", "persistent": True, "dir": cache_dir, "cache": True}
        self.numba = import_or_missing("numba", "numba")
        import numpy

        self.np = numpy
        self._dispatchers = []
        self._hooks = _install_numba_hooks(self.recorder)

    def summarize(self, window):
        p, c = window["phases"], window["counts"]
        # numba:compile covers typing, lowering and LLVM; llvm_lock the LLVM part.
        # target_init runs nested in a compile or a cache load: taken out of both.
        compile_s, llvm_s = p.get("compile", 0.0), p.get("llvm", 0.0)
        init_compile, init_load = p.get("target_init_in_compile", 0.0), p.get("target_init_in_load", 0.0)
        phases = {"target_init": init_compile + init_load + p.get("target_init_other", 0.0),
                  "typing_lowering": max(compile_s - llvm_s - init_compile, 0.0), "llvm": llvm_s,
                  "cache_load": max(p.get("cache_load", 0.0) - init_load, 0.0), "cache_save": p.get("cache_save", 0.0)}
        cache = {}
        if self._cache.get("persistent"):
            cache = {"hits": c.get("cache_hits", 0), "misses": c.get("cache_misses", 0),
                     "counter": "the dispatcher's cache.load_overload result (a hit also raises "
                                "dispatcher.stats.cache_hits)"}
        return {"phases": {k: v for k, v in phases.items() if v > 0}, "compiles": c.get("compiles", 0),
                "compiled_functions": window["labels"].get("compiled", {}), "cache": cache}

    def cache_readback(self):
        cfg = self.numba.config
        cached = bool(self._cache.get("cache"))
        # With cache=True and no NUMBA_CACHE_DIR, numba writes beside the source (__pycache__).
        where = cfg.CACHE_DIR or "__pycache__ beside each workload's source file"
        return {"values": {"numba.config.CACHE_DIR": cfg.CACHE_DIR, "njit cache": cached},
                "dirs": [where] if cached else []}

    def counters(self):
        """numba's own per-dispatcher counters, read after the run."""
        return {"cache_hits": sum(sum(d.stats.cache_hits.values()) for d in self._dispatchers),
                "cache_misses": sum(sum(d.stats.cache_misses.values()) for d in self._dispatchers)}

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
        if self._cache.get("cache"):
            _wrap_cache(d, self.recorder)
        return d

    def adopt(self, dispatcher):
        """The user's own dispatcher caches as njit does here: in the case's
        directory under warm_cache, not at all otherwise (a cache=True file left
        by an earlier process would make a cold run a warm one)."""
        from numba.core.caching import NullCache

        if self._cache.get("cache"):
            dispatcher.enable_caching()  # in NUMBA_CACHE_DIR, set before numba's import
            _wrap_cache(dispatcher, self.recorder)
        else:
            dispatcher._cache = NullCache()
        self._dispatchers.append(dispatcher)
        return dispatcher

    def anatomy_session(self):
        return NumbaAnatomy()

    def count_first_call(self, fn, inputs, mark):
        """numba's own compile events (numba:compile, the outermost) mark the
        boundaries: `compile` is what lies inside them, `other` the rest of the
        first call (argument typing, dispatch, the execution)."""
        from numba.core import event

        depth = [0]

        class Boundary(event.Listener):
            def on_start(self, ev):
                if depth[0] == 0:
                    mark("first_call.other")
                depth[0] += 1

            def on_end(self, ev):
                depth[0] -= 1
                if depth[0] == 0:
                    mark("first_call.compile")

        listener = Boundary()
        event.register("numba:compile", listener)
        try:
            out = self.sync(fn(*inputs))
        finally:
            event.unregister("numba:compile", listener)
        mark("first_call.other")
        return out, ("numba's compile events (numba:compile, outermost): compile inside them, other the rest of the "
                     "first call (typing the arguments, dispatch, execution)")

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


# numba's pipeline pass names -> jitbench sub-phases, per numba release whose
# names changed (the newest release <= the installed one is used); a pass not
# in the table keeps its own name.
NUMBA_ANATOMY_TABLES = [
    ((0, 56, 0), {
        "nopython_type_inference": "typing (nopython_type_inference)",
        "native_lowering": "lowering + LLVM (native_lowering)",
        "native_parfor_lowering": "lowering + LLVM (native_parfor_lowering)",
        "translate_bytecode": "bytecode to IR (translate_bytecode)",
    }),
]


def numba_anatomy_items(compile_spans, passes, version):
    """The anatomy items of one first call: numba's pass timers [(pipeline,
    pass key, seconds)] under the outermost compiles' intervals, each pass
    named by the release's mapping table (keys "17_nopython_type_inference":
    the pass's position, then its name)."""
    from .. import anatomy

    _, table = anatomy.release_table(NUMBA_ANATOMY_TABLES, version)
    named = []
    for pipeline, key, seconds in passes:
        head, _, rest = key.partition("_")
        name = rest if head.isdigit() and rest else key
        name = table.get(name, name)
        named.append((name if pipeline == "nopython" else f"{pipeline}: {name}", seconds))
    return anatomy.as_duration_items("compile", [tuple(iv) for iv in compile_spans], named, "numba pipeline pass")


class NumbaAnatomy:
    """numba's own per-pass pipeline timers (the compile result's metadata,
    pipeline_times) of the outermost compiles of the first call, under the
    whole compile: the passes run typing, lowering and LLVM interleaved, so
    they do not split along jitbench's typing_lowering / llvm phases."""

    def __init__(self):
        self.stream = None

    def begin(self):
        _STATE["anatomy"] = []

    def end(self):
        pass

    def report(self, spans, t_first_call, t_first_call_end):
        import numba

        from .. import anatomy

        passes = []
        for dispatcher, before in _STATE["anatomy"] or []:
            for sig in [s for s in getattr(dispatcher, "signatures", ()) if s not in before]:
                for pipeline, timings in dispatcher.get_metadata(sig).get("pipeline_times", {}).items():
                    passes += [(pipeline, key, t.init + t.run + t.finalize) for key, t in timings.items()]
        _STATE["anatomy"] = None
        release, _ = anatomy.release_table(NUMBA_ANATOMY_TABLES, numba.__version__)
        compile_spans = [tuple(iv) for iv in spans.get("compile", [])]
        self.stream = {"framework": "numba", "version": numba.__version__, "spans": {"compile": compile_spans},
                       "passes": passes}
        return {"mapping": f"numba {'.'.join(map(str, release))}",
                "sources": "numba's compile metadata (pipeline_times) of the outermost compiles, under the "
                           "outermost numba:compile events",
                "items": numba_anatomy_items(compile_spans, passes, numba.__version__)}


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


def _wrap_cache(dispatcher, rec):
    """Times the dispatcher's own cache load and save, and counts hits/misses."""
    import time

    cache = dispatcher._cache
    load, save = cache.load_overload, cache.save_overload
    name = dispatcher.py_func.__name__

    def load_overload(*a, **kw):
        # load_overload first refreshes the target context (target_init, timed
        # by the refresh wrapper and taken out of this time), then loads.
        _STATE["loading"] += 1
        t0 = time.perf_counter()
        try:
            cres = load(*a, **kw)
        finally:
            _STATE["loading"] -= 1
        rec.add("cache_load", time.perf_counter() - t0)
        rec.count("cache_hits" if cres is not None else "cache_misses")
        if cres is not None:
            rec.label("loaded", name)
        return cres

    def save_overload(*a, **kw):
        t0 = time.perf_counter()
        try:
            return save(*a, **kw)
        finally:
            rec.add("cache_save", time.perf_counter() - t0)

    cache.load_overload, cache.save_overload = load_overload, save_overload


# Where numba is, for the refresh timer: inside a compile, inside a cache load.
# "anatomy": the outermost compiles' dispatchers while an anatomy is taken (else None).
_STATE = {"compiling": 0, "loading": 0, "anatomy": None}


def _install_refresh_timer(recorder):
    """numba's typing and target contexts refresh() before every compile and
    cache load: the first time it installs the whole target's registries (about
    a second), later only what is new. Timed outermost (the target refresh
    calls the typing one), and labelled by where it ran, so that the compile or
    cache load it is nested in can leave it out."""
    import time

    from numba.core import base
    from numba.core.typing import context as typing_context

    depth = [0]

    def wrap(cls):
        original = cls.refresh
        if getattr(original, "_jitbench_timed", False):
            return

        def refresh(self):
            depth[0] += 1
            t0 = time.perf_counter()
            try:
                return original(self)
            finally:
                depth[0] -= 1
                if depth[0] == 0:
                    where = ("in_compile" if _STATE["compiling"] else "in_load" if _STATE["loading"] else "other")
                    recorder.add(f"target_init_{where}", time.perf_counter() - t0)

        refresh._jitbench_timed = True
        cls.refresh = refresh

    wrap(base.BaseContext)
    wrap(typing_context.BaseContext)


def _install_numba_hooks(recorder):
    """Outermost-only timers for numba's compile and LLVM events (they nest).
    LLVM work counts as the `llvm` phase only inside a compile; outside one (when
    a cache load or save finalises machine code) it is part of that load or
    save, so that no time is counted twice."""
    import time

    from numba.core import event

    _install_refresh_timer(recorder)
    compile_depth = [0]

    class DepthTimer(event.Listener):
        def __init__(self, phase):
            self.phase, self.depth, self.t0 = phase, 0, 0.0

        def on_start(self, ev):
            if self.depth == 0:
                self.t0 = time.perf_counter()
                if self.phase == "compile" and _STATE["anatomy"] is not None and isinstance(ev.data, dict):
                    d = ev.data.get("dispatcher")
                    _STATE["anatomy"].append((d, set(getattr(d, "signatures", ()))))
            self.depth += 1
            if self.phase == "compile":
                compile_depth[0] += 1
                _STATE["compiling"] += 1

        def on_end(self, ev):
            self.depth -= 1
            if self.phase == "compile":
                compile_depth[0] -= 1
                _STATE["compiling"] -= 1
            if self.depth == 0 and (self.phase == "compile" or compile_depth[0] > 0):
                recorder.add(self.phase, time.perf_counter() - self.t0)
                if self.phase == "compile":
                    recorder.count("compiles")
                    recorder.label("compiled", ev.data.get("dispatcher").py_func.__name__
                                   if isinstance(ev.data, dict) and ev.data.get("dispatcher") else "?")

    hooks = [("numba:compile", DepthTimer("compile")), ("numba:llvm_lock", DepthTimer("llvm"))]
    for kind, listener in hooks:
        event.register(kind, listener)
    return hooks
