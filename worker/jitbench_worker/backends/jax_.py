"""jax.jit on one platform. Settings go through jax.config before the first
computation; the persistent-cache thresholds are lowered so that small programs
are cached at all (the defaults skip anything that compiles in under 1 s)."""

from .base import Adapter, DeviceUnavailable, import_or_missing


class JaxAdapter(Adapter):
    package = "jax"
    framework = "jax"

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
