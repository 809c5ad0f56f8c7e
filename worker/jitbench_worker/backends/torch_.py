"""torch.compile (dynamo + AOTAutograd + inductor) and eager torch, its
baseline on the same device (torch_eager on the CPU, torch_eager_gpu on a GPU).

Phases come from torch's own chromium event log (the begin and end of every
compile region): each region's exclusive time goes to its nearest enclosing
phase root (_TORCH_PHASE_ROOTS), so nothing nests or counts twice, and the
phases add up to dynamo's whole compile of the frame. Cache hits come from
each frame's CompilationMetrics as torch records it. The inductor FX-graph
cache, Triton's cache and dynamo's PGO state (on by default, in /tmp and
~/.triton) are pointed at the case's own directory, so cold_cache really starts
empty and keeps torch's default of writing them."""

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


# Compile regions of torch's own chromium event log, by the phase their time
# goes to: every event's exclusive time counts for its nearest enclosing root,
# so nested regions are never counted twice and the phases add up to dynamo's
# whole compile.
_TORCH_PHASE_ROOTS = {
    "dynamo": "dynamo",
    "backend_compile": "backend_other",
    "inductor_codecache_torch_key": "cache_key",
    "CacheBase.get_system.triton_key": "cache_key",
    "create_aot_dispatcher_function": "aot_autograd",
    "compile_fx.<locals>.fw_compiler_base": "inductor",
    "compile_fx.<locals>.bw_compiler_base": "inductor",
}


# torch's chromium event names -> jitbench sub-phases, per torch release whose
# names changed (the newest release <= the installed one is used; an older
# release gets the oldest); an event not in the table keeps its own name. The
# names are those seen in torch 2.15.0's streams (tests/data/anatomy/ and the
# results pages): no other release has been recorded.
TORCH_ANATOMY_TABLES = [
    ((2, 15, 0), {
        "bytecode_tracing": "bytecode tracing (bytecode_tracing)",
        "aot_collect_metadata": "collect metadata (aot_collect_metadata)",
        "inductor_compile": "inductor compile (inductor_compile)",
        "fx_codegen_and_compile": "FX codegen and compile (fx_codegen_and_compile)",
        "GraphLowering.run": "lowering (GraphLowering.run)",
        "GraphLowering.codegen": "code generation (GraphLowering.codegen)",
        "Scheduler.__init__": "scheduling (Scheduler.__init__)",
        "Scheduler.codegen": "kernel code generation (Scheduler.codegen)",
        "PyCodeCache.load_by_key_path": "load the generated module (PyCodeCache.load_by_key_path)",
        "async_compile.wait": "wait for kernel compiles (async_compile.wait)",
        "compile_file": "C++ compile (compile_file)",
    }),
]


def torch_phase_spans(events):
    """{phase: [(start, end)]}: every instant inside a phase root goes to the
    phase of the innermost root that holds it — the intervals behind the
    exclusive times the hook adds up as the phases (_hook_compile_events: an
    event that is no root counts for its nearest enclosing root), also where
    a phase's root lies inside another phase's inside its own."""
    from .. import anatomy

    roots = [(e[0], e[1], _TORCH_PHASE_ROOTS[e[2]]) for e in events if e[2] in _TORCH_PHASE_ROOTS]
    cuts = sorted({t for a, b, _ in roots for t in (a, b)})
    pieces = {}
    for a, b in zip(cuts, cuts[1:]):
        holding = [r for r in roots if r[0] <= a and b <= r[1]]
        if holding:  # the innermost: the latest start (regions nest), the shortest on a tie
            phase = max(holding, key=lambda r: (r[0], -(r[1] - r[0])))[2]
            pieces.setdefault(phase, []).append((a, b))
    return {phase: anatomy.merged(ivs) for phase, ivs in sorted(pieces.items())}


def torch_anatomy_items(events, version, origin, dropped=None):
    """The anatomy items of one first call from its chromium events [(start,
    end, name)] on jitbench's clock: the phases' intervals from their roots,
    every other event nested by interval under the phase it lies in (one that
    holds a nested root of another phase lies in no single phase: left out,
    counted in dropped)."""
    from .. import anatomy

    _, table = anatomy.release_table(TORCH_ANATOMY_TABLES, version)
    subs = [e for e in events if e[2] not in _TORCH_PHASE_ROOTS]
    return anatomy.nest(subs, torch_phase_spans(events), table, "torch chromium event", None, dropped, origin)


class TorchAnatomy:
    """torch's chromium event log (the compile regions torch.compile marks
    itself: dynamo's tracing, AOTAutograd, inductor's lowering, scheduling,
    code generation, C++/Triton compiles, cache lookups) of the first call,
    from the hook that also gives the phases: the anatomy only keeps each
    region's begin and end, which the measured runs never do."""

    def __init__(self, torch):
        self.torch, self.stream = torch, None

    def begin(self):
        _ANATOMY["events"] = []

    def end(self):
        pass

    def report(self, spans, t_first_call, t_first_call_end):
        from .. import anatomy

        events, _ANATOMY["events"] = _ANATOMY["events"] or [], None
        # The second call's regions (a recompile) are not the first call's.
        first = [e for e in events if e[0] >= t_first_call and e[1] <= t_first_call_end]
        version = self.torch.__version__
        release, _ = anatomy.release_table(TORCH_ANATOMY_TABLES, version)
        self.stream = {"framework": "torch", "version": version, "t_first_call": t_first_call,
                       "events": [list(e) for e in first]}
        dropped = {}
        return {"mapping": f"torch {'.'.join(map(str, release))}",
                "sources": "torch's chromium event log (log_event_start / log_event_end of every compile region) "
                           "of the first call, under the phases' roots",
                "items": torch_anatomy_items(first, version, t_first_call, dropped), "dropped": dropped}


# "events": every compile region's (start, end, name) while an anatomy is taken (else None).
_ANATOMY = {"events": None}


class TorchAdapter(TorchTensors, Adapter):
    package = "torch"
    framework = "torch"

    def __init__(self, compiled: bool, platform: str):
        super().__init__()
        self.compiled = compiled
        self.platform = platform
        self.wants_gpu = platform == "gpu"
        self.name = ("torch_compile" if compiled else "torch_eager") + ("_gpu" if self.wants_gpu else "")
        self.sync_method = ("torch.cuda.synchronize(); checked with the stream's query() after the last call"
                            if self.wants_gpu else Adapter.sync_method)
        if compiled:
            self.has_compile_cache = True
            self.writes_cache_by_default = True  # FX graph cache, Triton's kernels
            self.phase_names = ("dynamo", "aot_autograd", "inductor", "cache_key", "backend_other")
            src = "framework events (torch's chromium event log), exclusive time under "
            self.phase_sources = {
                "dynamo": src + "'dynamo' outside the backend compile: bytecode tracing, guards",
                "aot_autograd": src + "'create_aot_dispatcher_function' outside the inductor compiler",
                "inductor": src + "'compile_fx.<locals>.fw_compiler_base' / 'bw_compiler_base'",
                "cache_key": src + "'inductor_codecache_torch_key', 'CacheBase.get_system.triton_key'",
                "backend_other": src + "'backend_compile' outside the above (inductor's lazy imports)",
            }

    def import_framework(self, dtype, cache_dir, cache_policy="cold_cache"):
        if self.compiled and cache_dir:
            # The FX graph cache, Triton's cache and dynamo's PGO state are on by
            # default (in /tmp and ~/.triton): every mode keeps them on, in the
            # case's own directory, which cold_cache starts empty.
            self.set_env("TORCHINDUCTOR_CACHE_DIR", os.path.join(cache_dir, "inductor"))
            self.set_env("TRITON_CACHE_DIR", os.path.join(cache_dir, "triton"))
            self._cache = {"kind": "torch_inductor", "persistent": True, "dir": cache_dir,
                           "TORCHINDUCTOR_CACHE_DIR": os.path.join(cache_dir, "inductor"),
                           "TRITON_CACHE_DIR": os.path.join(cache_dir, "triton"),
                           "note": "torch's defaults (FX graph cache on); dynamo's own tracing is never cached"}
        if not self.wants_gpu:
            self.set_env("CUDA_VISIBLE_DEVICES", "")
        self.torch = import_or_missing("torch", "torch")
        if self.compiled:
            _hook_compile_events(self.torch, self.recorder)

    def cache_readback(self):
        if not self.compiled:
            return {}
        values, dirs = {}, []
        try:
            from torch._inductor import config as inductor_config
            from torch._inductor.runtime.cache_dir_utils import cache_dir

            values = {"fx_graph_cache": inductor_config.fx_graph_cache,
                      "force_disable_caches": inductor_config.force_disable_caches,
                      "inductor cache_dir()": cache_dir()}
            dirs.append(values["inductor cache_dir()"])
        except (ImportError, AttributeError) as exc:  # another torch release
            values["note"] = f"inductor's cache settings could not be read back ({exc})"
        triton_dir = os.environ.get("TRITON_CACHE_DIR") or os.path.expanduser("~/.triton/cache")
        values["triton cache dir"] = triton_dir
        dirs.append(triton_dir)
        return {"values": values, "dirs": dirs}

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

    def pending(self, out):
        if not self.wants_gpu:
            return None
        return not self.torch.cuda.current_stream().query()

    def jit(self, fn):
        if not self.compiled:
            return fn
        return self.torch.compile(fn, backend="inductor")

    def anatomy_session(self):
        return TorchAnatomy(self.torch) if self.compiled else None

    def summarize(self, window):
        if not self.compiled:
            return super().summarize(window)
        p, c = window["phases"], window["counts"]
        cache = {}
        if self._cache.get("persistent"):
            cache = {"hits": c.get("fx_cache_hits", 0), "misses": c.get("fx_cache_misses", 0),
                     "aot_hits": c.get("aot_cache_hits", 0), "aot_misses": c.get("aot_cache_misses", 0),
                     "counter": "torch's CompilationMetrics (inductor FX graph / AOTAutograd local cache)"}
        return {"phases": {k: v for k, v in p.items() if k in self.phase_names and v > 0},
                "compiles": c.get("compiles", 0), "compiled_functions": window["labels"].get("compiled", {}),
                "cache": cache}

    def apply_precision(self, requested):
        super().apply_precision(requested)
        if requested == "highest":
            self.torch.backends.cuda.matmul.allow_tf32 = False
            self.torch.backends.cudnn.allow_tf32 = False
            self.torch.set_float32_matmul_precision("highest")

    def precision_info(self, dtype):
        torch = self.torch
        allow = bool(torch.backends.cuda.matmul.allow_tf32)
        setting = torch.get_float32_matmul_precision()
        info = {"requested": self.requested_precision,
                "settings": {"torch.backends.cuda.matmul.allow_tf32": allow,
                             "float32_matmul_precision": setting}}
        if dtype == "f64":
            return {**info, "matmul": "fp64", "rule": "float64 products are never shortened"}
        if not self.wants_gpu:
            return {**info, "matmul": "ieee_fp32" if setting == "highest" else "bf16" if setting == "medium"
                    else "ieee_fp32", "rule": f"CPU at float32_matmul_precision={setting}"}
        cc = torch.cuda.get_device_capability(0)
        info["settings"]["compute_capability"] = list(cc)
        if cc < (8, 0):
            return {**info, "matmul": "ieee_fp32", "rule": "TF32 needs compute capability 8.0 or later"}
        if setting == "medium":
            return {**info, "matmul": "bf16", "rule": "float32_matmul_precision=medium allows bf16 products"}
        if allow or setting == "high":
            return {**info, "matmul": "tf32", "rule": "TF32 allowed (allow_tf32 or precision 'high')"}
        return {**info, "matmul": "ieee_fp32", "rule": "torch's default: TF32 off for matmuls"}

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


def _hook_compile_events(torch, rec):
    """Phases from torch's chromium event log (begin/end of every compile
    region), and cache hits from each frame's CompilationMetrics as it is
    recorded (wrapping record_compilation_metrics: no bounded deque to slice)."""
    import time

    import torch._dynamo.utils as du

    log = du.get_chromium_event_logger()
    start, end = log.log_event_start, log.log_event_end
    stack = []  # [name, t0, child time, root]

    def log_event_start(event_name, *a, **kw):
        parent_root = stack[-1][3] if stack else None
        stack.append([event_name, time.perf_counter(), 0.0, _TORCH_PHASE_ROOTS.get(event_name, parent_root)])
        return start(event_name, *a, **kw)

    def log_event_end(event_name, *a, **kw):
        while stack:
            name, t0, children, root = stack.pop()
            t1 = time.perf_counter()
            dt = t1 - t0
            if _ANATOMY["events"] is not None:
                _ANATOMY["events"].append((t0, t1, name))
            if stack:
                stack[-1][2] += dt
            if root:
                rec.add(root, dt - children, disjoint=True)
            if name == event_name:
                break
        return end(event_name, *a, **kw)

    log.log_event_start, log.log_event_end = log_event_start, log_event_end

    record = du.record_compilation_metrics

    def record_compilation_metrics(*a, **kw):
        out = record(*a, **kw)
        m = du._compilation_metrics[-1] if du._compilation_metrics else None
        if m is not None:
            rec.count("compiles")
            rec.label("compiled", m.co_name or "?")
            rec.count("fx_cache_hits", m.inductor_fx_local_cache_hit_count or 0)
            rec.count("fx_cache_misses", m.inductor_fx_local_cache_miss_count or 0)
            rec.count("aot_cache_hits", m.aotautograd_local_cache_hit_count or 0)
            rec.count("aot_cache_misses", m.aotautograd_local_cache_miss_count or 0)
        return out

    du.record_compilation_metrics = record_compilation_metrics
