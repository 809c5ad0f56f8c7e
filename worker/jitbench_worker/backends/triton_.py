"""Triton kernels, launched on torch tensors.

On a GPU the kernels are compiled for real: phases come from Triton's
compilation listener (make_ir, the lowering stages ttir/ttgir/llir/ptx/cubin
summed as `lowering`, and storing to the cache), and TRITON_CACHE_DIR is the
case's own directory. Without a GPU Triton can only interpret kernels
(TRITON_INTERPRET=1, a NumPy simulation): the result is still verified, but
nothing is compiled, so the case is reported as warn / interpreter_only and its
timings are never mixed with compiled ones."""

import importlib.util
import os

from .base import Adapter, MissingDependency, import_or_missing
from .torch_ import TorchTensors


class TritonAdapter(TorchTensors, Adapter):
    name = "triton"
    package = "triton"
    requires = ("triton", "torch")  # Triton launches kernels on torch tensors
    framework = "triton"
    has_compile_cache = True
    phase_names = ("make_ir", "lowering", "store")

    def __init__(self):
        super().__init__()
        self.interpreter_only = False

    def import_framework(self, dtype, cache_dir):
        for pkg in self.requires:
            if importlib.util.find_spec(pkg) is None:
                raise MissingDependency(pkg)
        self.torch = import_or_missing("torch", "torch")
        if not self.torch.cuda.is_available():
            # Must be set before any @triton.jit runs (kernels are defined in build()).
            self.set_env("TRITON_INTERPRET", "1")
            self.interpreter_only = True
            self.phase_names = ()  # nothing is compiled, so no phases and no compile count
        if cache_dir:
            self.set_env("TRITON_CACHE_DIR", cache_dir)
            self._cache = {"kind": "triton", "dir": cache_dir}
        self.triton = import_or_missing("triton", "triton")
        rec = self.recorder

        def listener(*, src, metadata, metadata_group, times, cache_hit):
            rec.count("cache_hits" if cache_hit else "cache_misses")
            if not cache_hit:
                rec.count("compiles")
                rec.add("make_ir", times.ir_initialization / 1e6)
                rec.add("lowering", times.total_lowering / 1e6)
                rec.add("store", times.store_results / 1e6)

        if not self.interpreter_only:
            self.triton.knobs.compilation.listener = listener

    def init_device(self):
        self.dev = self.torch.device("cpu" if self.interpreter_only else "cuda")
        self.torch.ones(1, device=self.dev).sum().item()

    def sync(self, out):
        if not self.interpreter_only:
            self.torch.cuda.synchronize()
        return out

    def stop_recording(self):
        rec = self.recorder.stop()
        hits = rec["counts"].pop("cache_hits", 0)
        misses = rec["counts"].pop("cache_misses", 0)
        rec["cache"] = {"hits": hits, "misses": misses} if self._cache.get("dir") and not self.interpreter_only else {}
        if self.interpreter_only:
            rec["phases"], rec["counts"] = {}, {}
        return rec

    def device_peak_bytes(self):
        if self.interpreter_only:
            return None
        return int(self.torch.cuda.max_memory_allocated())

    def info(self):
        return {"name": self.name, "version": self.triton.__version__, "torch": self.torch.__version__,
                "interpreter": self.interpreter_only,
                "TRITON_INTERPRET": os.environ.get("TRITON_INTERPRET")}

    def device(self):
        if self.interpreter_only:
            return {"platform": "cpu", "kind": "triton interpreter (no compilation)", "count": 1}
        return {"platform": "gpu", "kind": self.torch.cuda.get_device_name(0), "count": self.torch.cuda.device_count()}
