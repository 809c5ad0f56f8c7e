"""tf.function(jit_compile=True): traced at the first call, then compiled by XLA.

Phases: TensorFlow reports no compile events to Python, so the one phase jitbench
can attribute is `python_trace`: the time the workload's Python body runs while
TensorFlow traces it (autograph conversion and graph building around it, the
XLA compile and the execution stay in the residual). Compiles are counted with
tf.function's own tracing counter. The persistent XLA cache is pointed at the
case's own directory through TF_XLA_FLAGS, which TensorFlow reads at import."""

import time

from .base import Adapter, DeviceUnavailable, import_or_missing


class TensorflowAdapter(Adapter):
    package = "tensorflow"
    framework = "tensorflow"
    has_compile_cache = True
    phase_names = ("python_trace",)

    def __init__(self, platform: str):
        super().__init__()
        self.platform = platform
        self.name = "tensorflow" if platform == "cpu" else "tensorflow_gpu"
        self.wants_gpu = platform == "gpu"
        self._functions = []

    def import_framework(self, dtype, cache_dir):
        self.set_env("TF_CPP_MIN_LOG_LEVEL", "2")  # INFO lines go to the log otherwise; no effect on speed
        if self.platform == "cpu":
            self.set_env("CUDA_VISIBLE_DEVICES", "-1")
        if cache_dir:
            self.set_env("TF_XLA_FLAGS", f"--tf_xla_persistent_cache_directory={cache_dir}")
            self._cache = {"kind": "tf_xla_persistent", "dir": cache_dir,
                           "note": "TensorFlow does not report cache reads; hits are unverified"}
        self.tf = import_or_missing("tensorflow", "tensorflow")

    def init_device(self):
        tf = self.tf
        if self.wants_gpu and not tf.config.list_physical_devices("GPU"):
            raise DeviceUnavailable("TensorFlow sees no GPU (tf.config.list_physical_devices('GPU') is empty); "
                                    "needs a visible NVIDIA GPU and the tensorflow[and-cuda] package")
        self._device = "/GPU:0" if self.wants_gpu else "/CPU:0"
        with tf.device(self._device):
            tf.constant(1.0).numpy()

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
        rec = self.recorder

        def traced(*args):
            t0 = time.perf_counter()
            try:
                return fn(*args)
            finally:
                rec.add("python_trace", time.perf_counter() - t0)

        f = self.tf.function(traced, jit_compile=True)
        self._functions.append(f)

        def call(*args):
            with self.tf.device(self._device):
                return f(*args)

        return call

    def _tracing_count(self):
        return sum(f.experimental_get_tracing_count() for f in self._functions)

    def start_recording(self):
        self._traces_before = self._tracing_count()
        self.recorder.start()

    def stop_recording(self):
        rec = self.recorder.stop()
        rec["counts"]["compiles"] = self._tracing_count() - self._traces_before
        rec["cache"] = {}
        return rec

    def prepare_warm_process(self):
        f = self.jit(_decoy)
        self.sync(f(self.to_device(__import__("numpy").arange(8.0))))

    def device_peak_bytes(self):
        if not self.wants_gpu:
            return None
        try:
            return self.tf.config.experimental.get_memory_info("GPU:0")["peak"]
        except Exception:
            return None

    def info(self):
        return {"name": self.name, "version": self.tf.__version__,
                "xla_jit": True, "built_with_cuda": bool(self.tf.test.is_built_with_cuda())}

    def device(self):
        gpus = self.tf.config.list_physical_devices("GPU")
        if self.wants_gpu and gpus:
            details = self.tf.config.experimental.get_device_details(gpus[0])
            return {"platform": "gpu", "kind": details.get("device_name", "GPU"), "count": len(gpus)}
        return {"platform": "cpu", "kind": "cpu", "count": 1}


def _decoy(x):
    return x * 2.0 + 1.0
