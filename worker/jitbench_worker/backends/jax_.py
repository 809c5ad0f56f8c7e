"""JAX on one platform: jax.jit (jax_jit_cpu, jax_jit_gpu) or the same
workload un-jitted, dispatched op by op (jax_eager_cpu, jax_eager_gpu: each
primitive compiles once and is cached in memory; the baseline a JAX user
weighs jit against, on the same device).

Settings go through jax.config before the first computation. Cache settings
per cache mode: cold_cache and warm_process keep JAX's default (no persistent
cache: nothing is read or written); warm_cache turns the persistent cache on in
the case's directory with the thresholds lowered, so that small programs are
cached at all (the defaults skip anything that compiles in under 1 s).

Phases of the first call, from JAX's own monitoring events (each carries the
function's name): trace, lower, compile (backend compiles that were not served
by the persistent cache), cache_load (backend compiles that were: fetch and
deserialise) and cache_write (serialising and writing a new entry, timed by
wrapping jax._src.compiler._cache_write, nested in a compile and subtracted
from it so that no time counts twice). A function traced inside a lowering or
a compile (scan's and jnp's helpers; an inner jit traced inside the outer
trace counts once) is that step's time, as JAX's own durations count it."""

import re

from .base import Adapter, DeviceUnavailable, Unsupported, covered, flag_value, import_or_missing, timed

_TRACE = "/jax/core/compile/jaxpr_trace_duration"
_LOWER = "/jax/core/compile/jaxpr_to_mlir_module_duration"
_BACKEND_COMPILE = "/jax/core/compile/backend_compile_duration"
_CACHE_REQUEST = "/jax/compilation_cache/compile_requests_use_cache"
_CACHE_HIT = "/jax/compilation_cache/cache_hits"

# Float32 products of a dot at each jax_default_matmul_precision on a GPU of
# compute capability 8.0 or later (Ampere+): DEFAULT and HIGH use TF32.
_GPU_FORMAT = {"highest": "ieee_fp32", "float32": "ieee_fp32", "bfloat16": "bf16"}


class JaxAdapter(Adapter):
    package = "jax"
    framework = "jax"
    phase_sources = {
        "trace": f"framework event {_TRACE}",
        "lower": f"framework event {_LOWER}",
        "compile": f"framework event {_BACKEND_COMPILE} without a persistent-cache hit, minus cache_write",
        "cache_load": f"framework event {_BACKEND_COMPILE} that hit the persistent cache ({_CACHE_HIT})",
        "cache_write": "wrapped function jax._src.compiler._cache_write",
    }
    sync_method = "jax.block_until_ready on the output; checked with Array.is_ready() after the last call"

    def __init__(self, platform: str, jit: bool = True):
        super().__init__()
        self.platform = platform
        self.use_jit = jit
        self.name = f"jax_{'jit' if jit else 'eager'}_{platform}"
        self.wants_gpu = platform == "gpu"
        self.has_compile_cache = jit
        self.phase_names = ("trace", "lower", "compile", "cache_load", "cache_write")
        self._cache = {"kind": "jax_persistent", "persistent": False,
                       "note": "JAX's default: no persistent compilation cache (jax_compilation_cache_dir unset)"}

    def import_framework(self, dtype, cache_dir, cache_policy="cold_cache"):
        self.jax = import_or_missing("jax", "jax")
        cfg = self.jax.config
        cfg.update("jax_platforms", "cpu" if self.platform == "cpu" else "cuda")
        # Without x64 JAX silently computes float64 requests in float32.
        cfg.update("jax_enable_x64", dtype == "f64")
        if cache_dir and cache_policy == "warm_cache":
            cfg.update("jax_compilation_cache_dir", cache_dir)
            cfg.update("jax_persistent_cache_min_compile_time_secs", 0.0)
            cfg.update("jax_persistent_cache_min_entry_size_bytes", -1)
            self._cache = {
                "kind": "jax_persistent", "persistent": True, "dir": cache_dir,
                "jax_persistent_cache_min_compile_time_secs": 0.0,
                "jax_persistent_cache_min_entry_size_bytes": -1,
            }
        self._cache["not_cleared"] = ("the CUDA driver's own JIT cache (~/.nv/ComputeCache) is outside "
                                      "jitbench's control")
        import jax.numpy as jnp

        self.jnp = jnp
        self._hook(self.recorder)

    def _hook(self, rec):
        """The listeners only append (time, recording?, event, duration, function)
        to a list: nothing else runs inside the measured call. collect_events
        turns the list into recorder events after the clock has stopped."""
        if self._cache.get("persistent"):
            # Without a cache dir JAX's _cache_write returns at once: nothing to time.
            from jax._src import compiler

            compiler._cache_write = timed(rec, "cache_write_nested", compiler._cache_write)
        import time

        raw, now = [], time.perf_counter
        self._raw = raw

        def on_duration(event, duration, **kw):
            raw.append((now(), rec.active, event, duration, kw.get("fun_name")))

        def on_event(event, **kw):
            raw.append((now(), rec.active, event, None, None))

        self.jax.monitoring.register_event_duration_secs_listener(on_duration)
        self.jax.monitoring.register_event_listener(on_event)
        self._hits = 0

    def collect_events(self):
        """The listeners' raw events as recorder events, each at the time its
        listener ran; those that fired while the recorder was stopped count
        only as the cache-hit state they leave (a hit is reported before the
        backend compile it serves)."""
        out = []
        for t, active, event, duration, name in self._raw:
            if event == _CACHE_HIT:
                self._hits += 1
            if not active:
                if event == _BACKEND_COMPILE:
                    self._hits = 0  # the compile a hit was reported for
                continue
            out.extend(self._recorded(t, event, duration, name or "?"))
        self._raw.clear()
        self.recorder.events.extend(out)

    def _recorded(self, t, event, duration, name):
        if event == _TRACE:
            return [(t, "phase", "trace", (duration, False))]
        if event == _LOWER:
            return [(t, "phase", "lower", (duration, False))]
        if event == _BACKEND_COMPILE:
            if self._hits:
                self._hits = 0
                return [(t, "phase", "cache_load", (duration, False)), (t, "count", "cache_loads", 1)]
            return [(t, "phase", "compile_total", (duration, False)), (t, "count", "compiles", 1),
                    (t, "label", "compiled", name)]
        if event == _CACHE_REQUEST:
            return [(t, "count", "cache_requests", 1)]
        if event == _CACHE_HIT:
            return [(t, "count", "cache_hits", 1)]
        return []

    def summarize(self, window):
        p, c = window["phases"], window["counts"]
        write = p.get("cache_write_nested", 0.0)
        # Lowering (scan, jnp helpers) and compiling trace functions of their
        # own: those trace events lie inside the lower or compile event, and
        # are its time, as JAX's own durations and .lower() count them.
        spans = window.get("spans", {})
        outer = spans.get("lower", []) + spans.get("compile_total", []) + spans.get("cache_load", [])
        trace = max(covered(spans.get("trace", []) + outer) - covered(outer), 0.0)
        phases = {"trace": trace, "lower": p.get("lower", 0.0),
                  "compile": max(p.get("compile_total", 0.0) - write, 0.0),
                  "cache_load": p.get("cache_load", 0.0), "cache_write": write}
        requests, hits = c.get("cache_requests", 0), c.get("cache_hits", 0)
        cache = {}
        if self._cache.get("persistent"):
            # cache_misses fires only when an entry is written: misses = requests - hits.
            cache = {"requests": requests, "hits": hits, "misses": requests - hits,
                     "loads": c.get("cache_loads", 0)}
        return {"phases": {k: v for k, v in phases.items() if v > 0},
                "compiles": c.get("compiles", 0), "compiled_functions": window["labels"].get("compiled", {}),
                "cache": cache}

    def cache_readback(self):
        cfg = self.jax.config
        values = {}
        for key in ("jax_compilation_cache_dir", "jax_enable_compilation_cache",
                    "jax_persistent_cache_min_compile_time_secs", "jax_persistent_cache_min_entry_size_bytes",
                    "jax_persistent_cache_enable_xla_caches"):
            try:
                values[key] = getattr(cfg, key)
            except AttributeError:
                pass  # a JAX release without this setting
        autotune = flag_value("XLA_FLAGS", "xla_gpu_per_fusion_autotune_cache_dir")
        values["XLA_FLAGS --xla_gpu_per_fusion_autotune_cache_dir"] = autotune
        dirs = [autotune]
        if values.get("jax_compilation_cache_dir") and values.get("jax_enable_compilation_cache", True):
            dirs.append(values["jax_compilation_cache_dir"])
        not_controlled = ["the CUDA driver's JIT cache (~/.nv/ComputeCache, CUDA_CACHE_PATH)"] if self.wants_gpu else []
        return {"values": values, "dirs": dirs, "not_controlled": not_controlled}

    def aot_compile(self, fn, inputs, clock):
        """jax.jit's stages: .trace, .lower, .compile, each read on clock()."""
        kept = getattr(fn, "jitbench_kept", None)
        if kept:  # jitbench measure: a jitted function called with arguments passed as given
            args = ", ".join(f"argument {i} ({what})" for i, what in sorted(kept["kept"].items()))
            raise Unsupported(f"the call is the jitted function {kept['wraps']} with {args} passed as given on "
                              "every call (no array in it), which its ahead-of-time path would need as static "
                              "arguments: its phases come from JAX's own events only, not cross-checked")
        if not hasattr(fn, "trace"):
            raise Unsupported(f"the call is a {type(fn).__name__}, not a jax.jit function (it has no .trace), so "
                              "it has no ahead-of-time path to cross-check")
        t0 = clock()
        traced = fn.trace(*inputs)
        t1 = clock()
        lowered = traced.lower()
        t2 = clock()
        compiled = lowered.compile()
        t3 = clock()
        return compiled, {"trace_s": t1 - t0, "lower_s": t2 - t1, "compile_s": t3 - t2}

    def count_first_call(self, fn, inputs, mark):
        """jax.jit's ahead-of-time stages, each a call of its own (the path the
        cross-check takes): trace, lower, compile, then the compiled function's
        first execution. JAX's duration events fire only at their end, so the
        plain call has no boundary to mark: a call that is not one jitted
        function is left undivided."""
        if not (self.use_jit and hasattr(fn, "trace")):
            out = self.sync(fn(*inputs))
            mark("first_call")
            return out, ("undivided: jax.jit's stages exist only for one jitted function, and JAX's events mark "
                         "no start" if self.use_jit else "undivided: nothing is compiled ahead of the call")
        traced = fn.trace(*inputs)
        mark("first_call.trace")
        lowered = traced.lower()
        mark("first_call.lower")
        compiled = lowered.compile()
        mark("first_call.compile")
        out = self.sync(compiled(*inputs))
        mark("first_call.execute")
        return out, "jax.jit's ahead-of-time stages, each a call of its own: trace, lower, compile, execute"

    def aot_prepare(self, fn, inputs):
        """A first jit trace in a process pays JAX's one-time dispatch set-up
        (argument handlers, jit's parameter inference, the tracing machinery),
        which the measured first call spends outside the trace event and the
        AOT process's clock would put into trace_s: tracing a throw-away jitted
        function of the same arguments pays it first. Nothing is lowered or
        compiled (those first-time costs lie inside the cold runs' events too,
        and stay measured), and nothing of fn's own trace is cached."""
        if not hasattr(fn, "trace"):
            return ""
        def jitbench_dispatch_setup(*args):
            return args

        self.jax.jit(jitbench_dispatch_setup).trace(*inputs)
        return "jit dispatch set-up: a throw-away function traced on the same arguments, not lowered"

    def anatomy_session(self):
        from .jax_anatomy import JaxAnatomy

        return JaxAnatomy(self.jax) if self.use_jit else None

    def profiler_active(self):
        from .jax_anatomy import profiler_session

        return profiler_session(self.jax)

    def observe_precision(self, fn, inputs):
        """The precision config XLA was handed for every dot of the measured
        function, read from its lowered StableHLO (lowering reuses the trace: no
        compile)."""
        if not hasattr(fn, "lower"):
            return None
        try:
            text = fn.lower(*inputs).as_text()
        except Exception as exc:
            return {"observed": False, "note": f"declared, not observed: lowering failed ({type(exc).__name__})"}
        found = sorted({f"{a},{b}" for a, b in re.findall(r"precision = \[(\w+), (\w+)\]", text)})
        return {"observed": True, "source": "precision config of every dot in the lowered StableHLO", "dot_precision": found}

    def prepare_warm_process(self):
        f = self.jit(lambda x: self.jnp.sin(x) * 2.0 + 1.0)
        f(self.jnp.arange(8.0)).block_until_ready()
        self.jax.clear_caches()  # in-memory caches only; the persistent cache is the case's own

    def device_peak_bytes(self):
        try:
            stats = self.jax.devices()[0].memory_stats()
        except Exception:
            return None
        return stats.get("peak_bytes_in_use") if stats else None

    def init_device(self):
        try:
            devices = self.jax.devices()
            x = self.jax.device_put(1.0, devices[0])
            x.block_until_ready()
        except Exception as exc:
            if self.wants_gpu:
                # JAX without a CUDA plugin fails with a bare AssertionError: say what it means.
                what = f"{type(exc).__name__}: {exc}".splitlines()[0].rstrip(": ")
                raise DeviceUnavailable(
                    f"JAX could not initialise the 'cuda' platform ({what}); needs a visible NVIDIA GPU "
                    "and the jax[cuda] plugin") from exc
            raise
        got = self.jax.default_backend()
        want = "cpu" if self.platform == "cpu" else "gpu"
        if got != want:
            if self.wants_gpu:
                raise DeviceUnavailable(f"JAX's default backend is {got!r}, not a GPU")
            raise RuntimeError(f"JAX's default backend is {got!r}, expected {want!r}")

    # -- precision -------------------------------------------------------------
    def apply_precision(self, requested):
        super().apply_precision(requested)
        if requested == "highest":
            self.jax.config.update("jax_default_matmul_precision", "highest")

    def precision_info(self, dtype):
        import os

        setting = self.jax.config.jax_default_matmul_precision
        info = {"requested": self.requested_precision,
                "settings": {"jax_default_matmul_precision": setting,
                             "NVIDIA_TF32_OVERRIDE": os.environ.get("NVIDIA_TF32_OVERRIDE")}}
        if dtype == "f64":
            return {**info, "matmul": "fp64", "rule": "float64 products are never shortened"}
        if self.platform == "cpu":
            return {**info, "matmul": "ieee_fp32", "rule": "XLA:CPU computes float32 dots in IEEE float32"}
        cc = getattr(self.jax.devices()[0], "compute_capability", None)
        info["settings"]["compute_capability"] = cc
        if os.environ.get("NVIDIA_TF32_OVERRIDE") == "0":
            return {**info, "matmul": "ieee_fp32", "rule": "NVIDIA_TF32_OVERRIDE=0 turns TF32 off in the libraries"}
        fmt = _GPU_FORMAT.get(str(setting).lower() if setting else "default", "tf32")
        seen = (self.observed or {}).get("dot_precision")
        if seen and all(p == "HIGHEST,HIGHEST" for p in seen):
            fmt = "ieee_fp32"  # the program asks for HIGHEST on every dot, whatever the global default
        elif seen and fmt == "ieee_fp32":
            fmt = "tf32"  # a dot at DEFAULT/HIGH despite the setting
        if fmt == "tf32" and (cc is None or float(cc) < 8.0):
            return {**info, "matmul": "ieee_fp32", "rule": "TF32 needs compute capability 8.0 or later"}
        return {**info, "matmul": fmt,
                "rule": f"XLA:GPU at jax_default_matmul_precision={setting or 'default'} on compute capability {cc}"}

    # -- calls -------------------------------------------------------------------
    def to_device(self, x):
        return self.jax.device_put(x)

    def sync(self, out):
        return self.jax.block_until_ready(out)

    def pending(self, out):
        leaves = [x for x in self.jax.tree_util.tree_leaves(out) if hasattr(x, "is_ready")]
        return any(not x.is_ready() for x in leaves) if leaves else None

    def jit(self, fn, **kw):
        if not self.use_jit:
            return fn  # op-by-op dispatch: what a user gets without jax.jit
        return self.jax.jit(fn, **kw)

    def info(self):
        import jaxlib

        return {
            "name": self.name,
            "version": self.jax.__version__,
            "jaxlib": jaxlib.__version__,
            "x64": bool(self.jax.config.jax_enable_x64),
            "jit": self.use_jit,
        }

    def device(self):
        try:
            d = self.jax.devices()[0]
            return {"platform": d.platform, "kind": d.device_kind, "count": self.jax.device_count()}
        except Exception:
            return None


