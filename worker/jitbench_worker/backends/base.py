"""What every backend adapter provides. Adapters import their framework only in
import_framework(), so that the import is what import_s measures."""

import importlib


class MissingDependency(Exception):
    def __init__(self, package: str):
        super().__init__(f"{package} is not installed")
        self.package = package


class DeviceUnavailable(Exception):
    """The device this backend needs (a GPU) could not be initialised."""


class Unsupported(Exception):
    """This backend cannot run this workload/dtype combination."""


def import_or_missing(module: str, package: str):
    """Imports module; a missing top-level package becomes MissingDependency."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] == package:
            raise MissingDependency(package) from exc
        raise


class Recorder:
    """Collects what a framework reports while a call runs: phase durations,
    compile counts and persistent-cache events. Only events between start()
    and stop() count, so the tiny init op and the setup never leak in."""

    def __init__(self):
        self.active = False
        self.phases = {}
        self.counts = {}

    def start(self):
        self.active, self.phases, self.counts = True, {}, {}

    def stop(self):
        self.active = False
        return {"phases": dict(self.phases), "counts": dict(self.counts)}

    def add(self, phase, seconds):
        if self.active:
            self.phases[phase] = self.phases.get(phase, 0.0) + seconds

    def count(self, name, k=1):
        if self.active:
            self.counts[name] = self.counts.get(name, 0) + k


class Adapter:
    name = ""
    package = ""        # import name; "" for none
    requires = ()       # further imports it needs (probe reports the first one missing)
    framework = ""      # key into a workload's IMPLEMENTATIONS
    wants_gpu = False

    has_compile_cache = False
    # True when the framework only simulates (Triton without a GPU): verified,
    # but reported as warn / interpreter_only and kept out of compile tables.
    interpreter_only = False
    # Names of the phases this framework reports, in order; the residual of the
    # first call (dispatch + execution) is whatever they do not cover.
    phase_names = ()

    def __init__(self):
        self._env = {}
        self._cache = {"kind": "none", "note": "this backend has no compile cache"}
        self.recorder = Recorder()

    # -- warm_process: an interactive session that already compiled something --
    def prepare_warm_process(self):
        """Compile and run an unrelated function, then clear in-memory caches."""

    def fresh(self, fn):
        """A new function object with fn's code, as re-running a notebook cell gives."""
        import types

        return types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)

    def start_recording(self):
        self.recorder.start()

    def stop_recording(self) -> dict:
        """{"phases": {name: s}, "counts": {"compiles": k}, "cache": {hits, misses, ...}}
        for the window since start_recording(); empty where not reported."""
        rec = self.recorder.stop()
        rec["cache"] = {}
        return rec

    def device_peak_bytes(self):
        """Device memory peak where the framework reports it, else None."""
        return None

    # -- phases -------------------------------------------------------------
    def import_framework(self, dtype: str, cache_dir):
        raise NotImplementedError

    def init_device(self):
        """One tiny synchronized operation that proves the device works."""

    def to_device(self, x):
        return x

    def sync(self, out):
        """Blocks until out is computed; returns it."""
        return out

    def to_numpy(self, out):
        """out (an array, or a dict/tuple/list of them) as NumPy, same structure."""
        if isinstance(out, dict):
            return {k: self.to_numpy(v) for k, v in out.items()}
        if isinstance(out, (tuple, list)):
            return tuple(self.to_numpy(v) for v in out)
        return self.leaf_to_numpy(out)

    def leaf_to_numpy(self, x):
        import numpy as np

        return np.asarray(x)

    # -- what the artifact records -------------------------------------------
    def info(self) -> dict:
        return {"name": self.name}

    def device(self):
        return {"platform": "cpu", "kind": "cpu", "count": 1}

    def cache_settings(self) -> dict:
        return self._cache

    def env_applied(self) -> dict:
        return self._env

    def set_env(self, key: str, value: str):
        import os

        os.environ[key] = value
        self._env[key] = value
