"""torch.compile (dynamo + AOTAutograd + inductor) and eager torch, its baseline.

Phases come from torch._dynamo's per-frame CompilationMetrics, recorded for the
frames compiled inside the measured window: dynamo (bytecode tracing and
guards: the frame's total minus its backend compile), aot_autograd (the backend
compile minus inductor) and inductor (code generation and the C++/Triton
compile). The inductor FX-graph cache and Triton's cache are pointed at the
case's own directory, so cold_cache really starts empty."""

import os

from .base import Adapter, DeviceUnavailable, import_or_missing


class TorchTensors:
    """Moving data for adapters that compute on torch tensors (torch, Triton):
    needs self.torch and self.dev."""

    def to_device(self, x):
        import numpy as np

        if not isinstance(x, np.ndarray):
            return x
        return self.torch.from_numpy(x).to(self.dev)

    def leaf_to_numpy(self, x):
        import numpy as np

        if hasattr(x, "detach"):
            return x.detach().cpu().numpy()
        return np.asarray(x)


class TorchAdapter(TorchTensors, Adapter):
    package = "torch"
    framework = "torch"

    def __init__(self, compiled: bool, platform: str):
        super().__init__()
        self.compiled = compiled
        self.platform = platform
        self.wants_gpu = platform == "gpu"
        self.name = ("torch_compile" if compiled else "torch_eager") + ("_gpu" if self.wants_gpu else "")
        if compiled:
            self.has_compile_cache = True
            self.phase_names = ("dynamo", "aot_autograd", "inductor")

    def import_framework(self, dtype, cache_dir):
        if self.compiled and cache_dir:
            self.set_env("TORCHINDUCTOR_CACHE_DIR", os.path.join(cache_dir, "inductor"))
            self.set_env("TRITON_CACHE_DIR", os.path.join(cache_dir, "triton"))
            self._cache = {"kind": "torch_inductor", "dir": cache_dir,
                           "TORCHINDUCTOR_CACHE_DIR": os.path.join(cache_dir, "inductor"),
                           "TRITON_CACHE_DIR": os.path.join(cache_dir, "triton"),
                           "note": "dynamo's own tracing is never cached; the FX graph and kernels are"}
        if not self.wants_gpu:
            self.set_env("CUDA_VISIBLE_DEVICES", "")
        self.torch = import_or_missing("torch", "torch")
        if self.compiled:
            import torch._dynamo.utils  # noqa: F401  (compilation metrics live here)

    def init_device(self):
        torch = self.torch
        if self.wants_gpu and not torch.cuda.is_available():
            raise DeviceUnavailable("torch.cuda.is_available() is False: needs a visible NVIDIA GPU and a CUDA "
                                    "build of torch")
        self.dev = torch.device("cuda" if self.wants_gpu else "cpu")
        torch.ones(1, device=self.dev).sum().item()

    def sync(self, out):
        if self.wants_gpu:
            self.torch.cuda.synchronize()
        return out

    def jit(self, fn):
        if not self.compiled:
            return fn
        return self.torch.compile(fn, backend="inductor")

    def _metrics(self):
        return self.torch._dynamo.utils.get_compilation_metrics() if self.compiled else []

    def start_recording(self):
        self._seen = len(self._metrics())
        self.recorder.start()

    def stop_recording(self):
        rec = self.recorder.stop()
        if not self.compiled:
            rec["cache"] = {}
            return rec
        new = self._metrics()[self._seen:]
        phases = {"dynamo": 0.0, "aot_autograd": 0.0, "inductor": 0.0}
        hits = misses = 0
        for m in new:
            frame = m.entire_frame_compile_time_s or 0.0
            backend = m.backend_compile_time_s or 0.0
            inductor = m.inductor_compile_time_s or 0.0
            phases["dynamo"] += max(frame - backend, 0.0)
            phases["aot_autograd"] += max(backend - inductor, 0.0)
            phases["inductor"] += inductor
            hits += m.inductor_fx_local_cache_hit_count or 0
            misses += m.inductor_fx_local_cache_miss_count or 0
        rec["phases"] = phases if new else {}
        rec["counts"]["compiles"] = len(new)
        rec["cache"] = {"hits": hits, "misses": misses} if self._cache.get("dir") else {}
        return rec

    def prepare_warm_process(self):
        f = self.jit(lambda x: self.torch.sin(x) * 2.0 + 1.0)
        self.sync(f(self.torch.arange(8.0, device=self.dev)))
        if self.compiled:
            self.torch._dynamo.reset()  # in-memory state only; the on-disk caches are the case's own

    def device_peak_bytes(self):
        if self.wants_gpu:
            return int(self.torch.cuda.max_memory_allocated())
        return None

    def info(self):
        return {"name": self.name, "version": self.torch.__version__, "compiled": self.compiled,
                "compile_backend": "inductor" if self.compiled else None,
                "cuda_build": self.torch.version.cuda, "num_threads": self.torch.get_num_threads()}

    def device(self):
        if self.wants_gpu and self.torch.cuda.is_available():
            return {"platform": "gpu", "kind": self.torch.cuda.get_device_name(0),
                    "count": self.torch.cuda.device_count()}
        return {"platform": "cpu", "kind": "cpu", "count": 1}
