"""jax.jit on one platform. Settings go through jax.config before the first
computation; the persistent-cache thresholds are lowered so that small programs
are cached at all (the defaults skip anything that compiles in under 1 s)."""

from .base import Adapter, DeviceUnavailable, import_or_missing


_PHASE_EVENTS = {
    "/jax/core/compile/jaxpr_trace_duration": "trace",
    "/jax/core/compile/jaxpr_to_mlir_module_duration": "lower",
    # On a persistent-cache hit this is fetch + deserialise, not a compile.
    "/jax/core/compile/backend_compile_duration": "compile",
}
_CACHE_EVENTS = {
    "/jax/compilation_cache/compile_requests_use_cache": "requests",
    "/jax/compilation_cache/cache_hits": "hits",
}


class JaxAdapter(Adapter):
    package = "jax"
    framework = "jax"
    has_compile_cache = True
    phase_names = ("trace", "lower", "compile")

    def __init__(self, platform: str):
        super().__init__()
        self.platform = platform
        self.name = f"jax_jit_{platform}"
        self.wants_gpu = platform == "gpu"

    def import_framework(self, dtype, cache_dir):
        self.jax = import_or_missing("jax", "jax")
        cfg = self.jax.config
        cfg.update("jax_platforms", "cpu" if self.platform == "cpu" else "cuda")
        # Without x64 JAX silently computes float64 requests in float32.
        cfg.update("jax_enable_x64", dtype == "f64")
        if cache_dir:
            cfg.update("jax_compilation_cache_dir", cache_dir)
            cfg.update("jax_persistent_cache_min_compile_time_secs", 0.0)
            cfg.update("jax_persistent_cache_min_entry_size_bytes", -1)
            self._cache = {
                "kind": "jax_persistent",
                "dir": cache_dir,
                "jax_persistent_cache_min_compile_time_secs": 0.0,
                "jax_persistent_cache_min_entry_size_bytes": -1,
                "not_cleared": "the CUDA driver's own JIT cache (~/.nv/ComputeCache) is outside jitbench's control",
            }
        import jax.numpy as jnp

        self.jnp = jnp
        rec = self.recorder

        def on_duration(event, duration, **kw):
            phase = _PHASE_EVENTS.get(event)
            if phase:
                rec.add(phase, duration)
                if phase == "compile":
                    rec.count("compiles")

        def on_event(event, **kw):
            name = _CACHE_EVENTS.get(event)
            if name:
                rec.count("cache_" + name)

        self.jax.monitoring.register_event_duration_secs_listener(on_duration)
        self.jax.monitoring.register_event_listener(on_event)

    def stop_recording(self):
        rec = self.recorder.stop()
        requests = rec["counts"].pop("cache_requests", 0)
        hits = rec["counts"].pop("cache_hits", 0)
        # cache_misses fires only when an entry is written: misses = requests - hits.
        rec["cache"] = {"requests": requests, "hits": hits, "misses": requests - hits} if self._cache.get("dir") else {}
        return rec

    def prepare_warm_process(self):
        f = self.jax.jit(lambda x: self.jnp.sin(x) * 2.0 + 1.0)
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

    def to_device(self, x):
        return self.jax.device_put(x)

    def sync(self, out):
        return self.jax.block_until_ready(out)

    def jit(self, fn, **kw):
        return self.jax.jit(fn, **kw)

    def info(self):
        import jaxlib

        return {
            "name": self.name,
            "version": self.jax.__version__,
            "jaxlib": jaxlib.__version__,
            "x64": bool(self.jax.config.jax_enable_x64),
        }

    def device(self):
        try:
            d = self.jax.devices()[0]
            return {"platform": d.platform, "kind": d.device_kind, "count": self.jax.device_count()}
        except Exception:
            return None
