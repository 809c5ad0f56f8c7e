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

from .base import Adapter, DeviceUnavailable, MissingDependency, import_or_missing
from .torch_ import TorchTensors


class TritonAdapter(TorchTensors, Adapter):
    name = "triton"
    package = "triton"
    requires = ("triton", "torch")  # Triton launches kernels on torch tensors
    framework = "triton"
    has_compile_cache = True
    writes_cache_by_default = True  # Triton always caches its kernels
    phase_names = ("make_ir", "lowering", "store")
    phase_sources = {
        "make_ir": "framework event: triton.knobs.compilation.listener times.ir_initialization",
        "lowering": "framework event: the listener's times.total_lowering (ttir, ttgir, llir, ptx, cubin)",
        "store": "framework event: the listener's times.store_results (writing the cache entry)",
    }

    def __init__(self):
        super().__init__()
        self.interpreter_only = False
        self.input_precision = None
        self.sync_method = "torch.cuda.synchronize(); checked with the stream's query() after the last call"

    def import_framework(self, dtype, cache_dir, cache_policy="cold_cache"):
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
            # Triton always caches (by default in ~/.triton/cache): every mode keeps
            # it on, in the case's own directory, which cold_cache starts empty.
            self.set_env("TRITON_CACHE_DIR", cache_dir)
            self._cache = {"kind": "triton", "persistent": True, "dir": cache_dir,
                           "note": "Triton's default: kernels are always cached"}
        self.triton = import_or_missing("triton", "triton")
        rec = self.recorder

        def listener(*, src, metadata, metadata_group, times, cache_hit):
            rec.count("cache_hits" if cache_hit else "cache_misses")
            rec.label("compiled", getattr(src, "name", "?"))
            if not cache_hit:
                rec.count("compiles")
                rec.add("make_ir", times.ir_initialization / 1e6, disjoint=True)
                rec.add("lowering", times.total_lowering / 1e6, disjoint=True)
                rec.add("store", times.store_results / 1e6, disjoint=True)

        if not self.interpreter_only:
            self.triton.knobs.compilation.listener = listener

    def cache_readback(self):
        try:
            directory = self.triton.knobs.cache.dir
        except AttributeError:  # releases before triton.knobs
            directory = os.environ.get("TRITON_CACHE_DIR") or os.path.expanduser("~/.triton/cache")
        return {"values": {"triton cache dir": directory}, "dirs": [directory]}

    def init_device(self):
        self.dev = self.torch.device("cpu" if self.interpreter_only else "cuda")
        self.torch.ones(1, device=self.dev).sum().item()

    def sync(self, out):
        if not self.interpreter_only:
            self.torch.cuda.synchronize()
        return out

    def require_device_for(self, what, n, interpreter_max):
        """Without a GPU, Triton's interpreter simulates every program in NumPy:
        fine for checking a small case, hours for a large one. Past
        interpreter_max the case needs a GPU and says so."""
        if self.interpreter_only and n > interpreter_max:
            raise DeviceUnavailable(f"no GPU, and Triton's interpreter is too slow for {what} at n = {n} "
                                    f"(it runs cases up to n = {interpreter_max} to check the kernel)")

    def pending(self, out):
        if self.interpreter_only:
            return None
        return not self.torch.cuda.current_stream().query()

    def summarize(self, window):
        c = window["counts"]
        if self.interpreter_only:
            return {"phases": {}, "compiles": None, "compiled_functions": None, "cache": {}}
        return {"phases": {k: v for k, v in window["phases"].items() if k in self.phase_names},
                "compiles": c.get("compiles", 0), "compiled_functions": window["labels"].get("compiled", {}),
                "cache": {"hits": c.get("cache_hits", 0), "misses": c.get("cache_misses", 0),
                          "counter": "Triton's compilation listener (cache_hit)"}}

    def precision_info(self, dtype):
        info = {"requested": self.requested_precision,
                "settings": {"input_precision": self.input_precision,
                             "TRITON_F32_DEFAULT": os.environ.get("TRITON_F32_DEFAULT")}}
        if dtype == "f64":
            return {**info, "matmul": "fp64", "rule": "float64 products are never shortened"}
        if self.interpreter_only:
            return {**info, "matmul": "ieee_fp32", "rule": "the interpreter computes tl.dot with NumPy"}
        cc = self.torch.cuda.get_device_capability(0)
        info["settings"]["compute_capability"] = list(cc)
        if self.input_precision == "ieee" or cc < (8, 0):
            return {**info, "matmul": "ieee_fp32", "rule": f"tl.dot input_precision={self.input_precision or 'default'}"
                    f" on compute capability {cc}"}
        fmt = os.environ.get("TRITON_F32_DEFAULT") or "tf32"
        return {**info, "matmul": "tf32" if fmt.startswith("tf32") else "ieee_fp32",
                "rule": f"tl.dot's default input_precision ({fmt}) on compute capability {cc}"}

    def apply_precision(self, requested):
        super().apply_precision(requested)
        # Read by the workloads' kernels: None keeps tl.dot's default (TF32 on Ampere+).
        self.input_precision = "ieee" if requested == "highest" else None

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
