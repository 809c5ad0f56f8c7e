"""tf.function(jit_compile=True): traced at the first call, then compiled by XLA.

Phases of the first call:
- trace: tf.function's tracing (autograph conversion, running the Python
  body, building the graph), timed by wrapping TensorFlow's own
  tracing_compilation._create_concrete_function, which runs once per new trace;
- xla_compile, cache_lookup, cache_load, cache_write: from TensorFlow's own
  log, which the worker turns on for two modules (TF_CPP_VMODULE) and reads
  back from its stderr after the clock: device_compilation_profiler's "compile
  time" per cluster (a load from the persistent cache when
  device_executable_persistor says "Loading cached entry"); the write and the
  lookup that missed by device_executable_persistor's own scoped timers, whose
  lines ("Serializing and saving cache entry: ... time: 970 us (970 us)", "Try
  loading serialized cache entry: ...") TensorFlow prints when each ends. Both
  run inside the compile that the profiler times, and are taken out of it.
Compiles are XLA compiles (cache loads excluded); traces are labelled apart.

Cache settings: cold_cache and warm_process keep TensorFlow's default (no
persistent XLA cache); warm_cache sets TF_XLA_FLAGS=
--tf_xla_persistent_cache_directory=<case dir> before the import, and a hit is
the "Loading cached entry" line (and, independently, inotify's record of the
entry being read)."""

import os
import re
import time

from .base import Adapter, DeviceUnavailable, flag_value, import_or_missing

_LOG_MODULES = "device_compilation_profiler=1,device_executable_persistor=1"
_STAMP = re.compile(r"^[IWEF]\d{4} \d\d:\d\d:(\d+\.\d+)\s+\d+\s+(\S+)\] (.*)$")
# Releases before absl logging (2.16): "2026-11-26 19:40:53.647799: I file.cc:113] ...", local time.
_STAMP_LOCAL = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+): [IWEF] (\S+)\] (.*)$")
_COMPILE = re.compile(r"Compiled (\S+) \d+ times, compile time: (\d+) us")
# The tail of an XLA scoped-timer line: "time: 970 us (970 us) (cumulative: ...)".
_TIMER_US = re.compile(r" time: [^()]*\((\d+) us\)")


class TensorflowAdapter(Adapter):
    package = "tensorflow"
    framework = "tensorflow"
    has_compile_cache = True
    phase_names = ("trace", "xla_compile", "cache_lookup", "cache_load", "cache_write")
    phase_sources = {
        "trace": "wrapped function tensorflow...tracing_compilation._create_concrete_function",
        "xla_compile": "framework log: device_compilation_profiler 'compile time' minus the persistor's lookup "
                       "and write (cache loads excluded)",
        "cache_lookup": "framework timer: device_executable_persistor 'Try loading serialized cache entry' on a miss",
        "cache_load": "framework log: a compile that device_executable_persistor served ('Loading cached entry')",
        "cache_write": "framework timer: device_executable_persistor 'Serializing and saving cache entry'",
    }

    def __init__(self, platform: str, jit: bool = True):
        super().__init__()
        self.platform = platform
        self.use_jit = jit
        self.name = ("tensorflow" if jit else "tensorflow_eager") + ("" if platform == "cpu" else "_gpu")
        self.wants_gpu = platform == "gpu"
        if not jit:
            # Eager TensorFlow runs each op's kernel as it is called: nothing is
            # traced or compiled, and there is no compile cache.
            self.has_compile_cache, self.phase_names, self.phase_sources = False, (), {}
        self.sync_method = ("tf.test.experimental.sync_devices() after the call (TensorFlow offers no way to "
                            "check for pending work)")
        self._cache = {"kind": "tf_xla_persistent", "persistent": False,
                       "note": "TensorFlow's default: no persistent XLA cache"}

    def import_framework(self, dtype, cache_dir, cache_policy="cold_cache"):
        if self.platform == "cpu":
            self.set_env("CUDA_VISIBLE_DEVICES", "-1")
        if not self.use_jit:
            self._cache = {"kind": "none", "persistent": False, "note": "eager TensorFlow compiles nothing"}
            self.tf = import_or_missing("tensorflow", "tensorflow")
            self._log = _OwnLog()
            return
        # INFO level is needed for the compile log lines (only three modules log verbosely).
        self.set_env("TF_CPP_MIN_LOG_LEVEL", "0")
        self.set_env("TF_CPP_VMODULE", _LOG_MODULES)
        if cache_dir and cache_policy == "warm_cache":
            self.set_env("TF_XLA_FLAGS", f"--tf_xla_persistent_cache_directory={cache_dir}")
            self._cache = {"kind": "tf_xla_persistent", "persistent": True, "dir": cache_dir,
                           "TF_XLA_FLAGS": f"--tf_xla_persistent_cache_directory={cache_dir}"}
        self.tf = import_or_missing("tensorflow", "tensorflow")
        from tensorflow.python.eager.polymorphic_function import tracing_compilation as tc

        rec, create = self.recorder, tc._create_concrete_function

        def traced(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return create(*args, **kwargs)
            finally:
                rec.add("trace", time.perf_counter() - t0)
                rec.count("traces")

        tc._create_concrete_function = traced
        self._log = _OwnLog()

    def anatomy_session(self):
        from .tf_anatomy import TfAnatomy

        return TfAnatomy(self.tf) if self.use_jit else None

    def profiler_active(self):
        from .tf_anatomy import profiler_session

        return profiler_session()

    def cache_readback(self):
        if not self.use_jit:
            return {}
        # TensorFlow has no API that reads its XLA flags back: what it parsed is
        # the environment it was imported with, which this process still holds.
        directory = flag_value("TF_XLA_FLAGS", "tf_xla_persistent_cache_directory")
        return {"values": {"TF_XLA_FLAGS": os.environ.get("TF_XLA_FLAGS"),
                           "tf_xla_persistent_cache_directory": directory,
                           "source": "the environment TensorFlow was imported with (no API reads the flags back)"},
                "dirs": [directory]}

    def init_device(self):
        tf = self.tf
        if self.wants_gpu and not tf.config.list_physical_devices("GPU"):
            raise DeviceUnavailable("TensorFlow sees no GPU (tf.config.list_physical_devices('GPU') is empty); "
                                    "needs a visible NVIDIA GPU and the tensorflow[and-cuda] package")
        self._device = "/GPU:0" if self.wants_gpu else "/CPU:0"
        with tf.device(self._device):
            tf.constant(1.0).numpy()
        self._log.mark()  # log lines from here on are the measured calls'

    def collect_events(self):
        if self.use_jit:
            self.recorder.events.extend(self._log.events())

    def summarize(self, window):
        if not self.use_jit:
            return super().summarize(window)
        p, c = window["phases"], window["counts"]
        write, lookup = p.get("cache_write", 0.0), p.get("cache_lookup", 0.0)
        phases = {"trace": p.get("trace", 0.0), "xla_compile": max(p.get("xla_total", 0.0) - write - lookup, 0.0),
                  "cache_lookup": lookup, "cache_load": p.get("cache_load", 0.0), "cache_write": write}
        cache = {}
        if self._cache.get("persistent"):
            cache = {"hits": c.get("cache_hits", 0), "misses": c.get("cache_writes", 0),
                     "counter": "TensorFlow's own log (device_executable_persistor)"}
        functions = dict(window["labels"].get("compiled", {}))
        if c.get("traces"):
            functions["(tf.function traces)"] = c["traces"]
        return {"phases": {k: v for k, v in phases.items() if v > 0},
                "compiles": c.get("compiles", 0) if self._log.available else None,
                "compiled_functions": functions, "cache": cache}

    def to_device(self, x):
        import numpy as np

        if not isinstance(x, np.ndarray):
            return x
        with self.tf.device(self._device):
            return self.tf.constant(x)

    def sync(self, out):
        # Eager ops may run asynchronously on a GPU; sync_devices waits for all.
        self.tf.test.experimental.sync_devices()
        return out

    def leaf_to_numpy(self, x):
        import numpy as np

        return np.asarray(x.numpy() if hasattr(x, "numpy") else x)

    def jit(self, fn):
        # Eager: op-by-op dispatch, what a user gets without tf.function.
        f = self.tf.function(fn, jit_compile=True) if self.use_jit else fn

        def call(*args):
            with self.tf.device(self._device):
                return f(*args)

        return call

    def prepare_warm_process(self):
        f = self.jit(_decoy)
        self.sync(f(self.to_device(__import__("numpy").arange(8.0))))

    def apply_precision(self, requested):
        super().apply_precision(requested)
        if requested == "highest":
            self.tf.config.experimental.enable_tensor_float_32_execution(False)

    def precision_info(self, dtype):
        enabled = bool(self.tf.config.experimental.tensor_float_32_execution_enabled())
        info = {"requested": self.requested_precision,
                "settings": {"tensor_float_32_execution_enabled": enabled,
                             "NVIDIA_TF32_OVERRIDE": os.environ.get("NVIDIA_TF32_OVERRIDE")}}
        if dtype == "f64":
            return {**info, "matmul": "fp64", "rule": "float64 products are never shortened"}
        if not self.wants_gpu:
            return {**info, "matmul": "ieee_fp32", "rule": "TF32 applies to GPUs only"}
        cc = None
        gpus = self.tf.config.list_physical_devices("GPU")
        if gpus:
            cc = self.tf.config.experimental.get_device_details(gpus[0]).get("compute_capability")
        info["settings"]["compute_capability"] = list(cc) if cc else None
        if not enabled or os.environ.get("NVIDIA_TF32_OVERRIDE") == "0":
            return {**info, "matmul": "ieee_fp32", "rule": "TF32 execution is off"}
        if not cc or tuple(cc) < (8, 0):
            return {**info, "matmul": "ieee_fp32", "rule": "TF32 needs compute capability 8.0 or later"}
        return {**info, "matmul": "tf32", "rule": f"TF32 execution on (TensorFlow's default) on compute capability {cc}"}

    def device_peak_bytes(self):
        if not self.wants_gpu:
            return None
        try:
            return self.tf.config.experimental.get_memory_info("GPU:0")["peak"]
        except Exception:
            return None

    def info(self):
        return {"name": self.name, "version": self.tf.__version__,
                "xla_jit": self.use_jit, "built_with_cuda": bool(self.tf.test.is_built_with_cuda())}

    def device(self):
        gpus = self.tf.config.list_physical_devices("GPU")
        if self.wants_gpu and gpus:
            details = self.tf.config.experimental.get_device_details(gpus[0])
            return {"platform": "gpu", "kind": details.get("device_name", "GPU"), "count": len(gpus)}
        return {"platform": "cpu", "kind": "cpu", "count": 1}


class _OwnLog:
    """The worker's own stderr (jitbench sends it to the run's log file), read
    back after the measured calls. Each parsed line becomes a recorder event at
    the perf_counter time its wall-clock timestamp corresponds to (a phase's
    value is (seconds, disjoint), as Recorder.add stores it)."""

    def __init__(self):
        self.path, self.offset, self.available = None, 0, False
        try:
            path = os.readlink("/proc/self/fd/2")
            if os.path.isfile(path):
                self.path, self.available = path, True
        except OSError:
            pass

    def mark(self):
        if self.available:
            self.offset = os.lseek(2, 0, os.SEEK_CUR)
        # Maps the log's wall-clock stamps onto perf_counter, the runner's clock.
        self.wall_minus_perf = time.time() - time.perf_counter()

    def events(self):
        if not self.available:
            return []
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            text = f.read().decode(errors="replace")
        # The persistor's lines come before the profiler's line of the same compile.
        out, write_s, lookup_s, hit = [], 0.0, 0.0, False
        for line in text.splitlines():
            stamp = _log_stamp(line)
            if stamp is None:
                continue
            at, msg = stamp[0] - self.wall_minus_perf, stamp[1]
            timer = _TIMER_US.search(msg)
            if "Loading cached entry" in msg:
                hit = True
                out.append((at, "count", "cache_hits", 1))
            elif "Serializing and saving cache entry" in msg:
                write_s += int(timer.group(1)) / 1e6 if timer else 0.0
                out.append((at, "count", "cache_writes", 1))
            elif "Try loading serialized cache entry" in msg:
                lookup_s += int(timer.group(1)) / 1e6 if timer else 0.0
            elif (c := _COMPILE.search(msg)):
                seconds = int(c.group(2)) / 1e6
                if hit:
                    out.append((at, "phase", "cache_load", (seconds, False)))
                else:
                    out.append((at, "phase", "xla_total", (seconds, False)))
                    out.append((at, "count", "compiles", 1))
                    out.append((at, "label", "compiled", c.group(1)))
                    # Sums of this compile's lines, not positioned: summed as they are.
                    out.append((at, "phase", "cache_write", (write_s, True)))
                    out.append((at, "phase", "cache_lookup", (lookup_s, True)))
                hit, write_s, lookup_s = False, 0.0, 0.0
        return out


def _log_stamp(line):
    """(seconds since the epoch, message) of one TensorFlow log line; None for
    a line that is not one."""
    m = _STAMP.match(line)
    if m:
        return float(m.group(1)), m.group(3)
    m = _STAMP_LOCAL.match(line)
    if m:
        from datetime import datetime

        return datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S.%f").timestamp(), m.group(3)
    return None


def _decoy(x):
    return x * 2.0 + 1.0
