"""What every backend adapter provides. Adapters import their framework only in
import_framework(), so that the import is what import_s measures."""

import importlib
import time


# The frameworks plain scripts/setup.sh leaves out (none is in the default
# suite), and how to ask for them, pip installation or source tree: said in
# the warn case's detail.
INSTALL_HINTS = {
    "tensorflow": "pip install tensorflow-cpu installs it (in a source tree: scripts/setup.sh --with-tensorflow)",
    "torch": "pip install torch installs it (in a source tree: scripts/setup.sh --with-torch)",
    "triton": "pip install torch installs it with Triton (in a source tree: scripts/setup.sh --with-torch)",
}


class MissingDependency(Exception):
    def __init__(self, package: str):
        super().__init__(f"{package} is not installed")
        self.package = package

    def detail(self) -> str:
        """What failed to import, and how to install it where jitbench knows."""
        what = str(self.__cause__ or self)
        hint = INSTALL_HINTS.get(self.package)
        return f"{what} ({hint})" if hint else what


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
    """Timestamped events from the framework's hooks: phase durations, counts
    and named occurrences, each stamped with time.perf_counter() when the hook
    ran. The runner reads only the clock around each call and splits the events
    into windows afterwards, so nothing is read, reset or built between two
    calls; events outside start()..stop() (the init op, the setup) never count."""

    def __init__(self):
        self.active = False
        self.events = []

    def start(self):
        self.active, self.events = True, []

    def stop(self):
        self.active = False

    def add(self, phase, seconds, at=None, disjoint=False):
        """`seconds` of `phase` ending now (or at `at`). disjoint=True: a time
        the hook has already made exclusive of nested events (torch's
        self-times) or that is not positioned in time (Triton's per-stage
        times): summed as is."""
        if self.active:
            self.events.append((time.perf_counter() if at is None else at, "phase", phase, (seconds, disjoint)))

    def count(self, name, k=1, at=None):
        if self.active:
            self.events.append((time.perf_counter() if at is None else at, "count", name, k))

    def label(self, name, value):
        """A named occurrence (which function compiled), counted per value."""
        if self.active:
            self.events.append((time.perf_counter(), "label", name, value))

    def window(self, t0, t1):
        """{"phases": {name: s}, "counts": {name: k}, "labels": {name: {value: k}},
        "spans": {name: [(start, end)]}} for t0 < t <= t1.

        A phase is the time covered by its events, each the interval that ends
        when its hook ran: an event nested in another of the same phase (JAX
        traces an inner jit while tracing the outer one and reports both;
        numba compiles a callee inside its caller's compile) counts once."""
        out = {"phases": {}, "counts": {}, "labels": {}}
        spans = {}
        for t, kind, name, value in self.events:
            if not (t0 < t <= t1):
                continue
            if kind == "phase":
                seconds, disjoint = value
                if disjoint:
                    out["phases"][name] = out["phases"].get(name, 0.0) + seconds
                else:
                    spans.setdefault(name, []).append((t - seconds, t))
            elif kind == "count":
                out["counts"][name] = out["counts"].get(name, 0) + value
            else:
                per = out["labels"].setdefault(name, {})
                per[value] = per.get(value, 0) + 1
        for name, ivs in spans.items():
            out["phases"][name] = out["phases"].get(name, 0.0) + covered(ivs)
        out["spans"] = spans  # each positioned phase's intervals, for an adapter whose phases nest in each other
        return out


def covered(intervals):
    """Total length of the union of (start, end) intervals."""
    total, end = 0.0, None
    for a, b in sorted(intervals):
        if end is None or a > end:
            total, end = total + (b - a), b
        elif b > end:
            total, end = total + (b - end), b
    return total


def _inside(path, directory):
    import os

    if not directory:
        return False
    p, d = os.path.realpath(path), os.path.realpath(directory)
    return p == d or p.startswith(d + os.sep)


def flag_value(variable, flag):
    """The value of --flag=... in the flag list held by an environment
    variable (XLA_FLAGS, TF_XLA_FLAGS), as the framework will read it; None."""
    import os

    value = None
    for word in os.environ.get(variable, "").split():
        if word.startswith(f"--{flag}="):
            value = word.split("=", 1)[1]  # the last occurrence wins, as in XLA
    return value


def timed(recorder, phase, fn, count=None):
    """fn wrapped so that each call's duration is recorded as `phase` (a
    "wrapped function" phase source); `count`, when given, is counted per call."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            recorder.add(phase, time.perf_counter() - t0)
            if count:
                recorder.count(count)

    return wrapper


class Adapter:
    name = ""
    package = ""        # import name; "" for none
    requires = ()       # further imports it needs (probe reports the first one missing)
    framework = ""      # key into a workload's IMPLEMENTATIONS
    wants_gpu = False

    has_compile_cache = False
    # True when the framework writes a compile cache at its default settings
    # (torch.compile, Triton): jitbench then expects writes in a cold run; for
    # every other backend a file written to the case's cache in a cold run
    # means a persistent cache was on, and the run was not what cold_cache says.
    writes_cache_by_default = False
    # True when the framework only simulates (Triton without a GPU): verified,
    # but reported as warn / interpreter_only and kept out of compile tables.
    interpreter_only = False
    # Names of the phases this framework reports, in order, and where each
    # number comes from (a framework event, a wrapped framework function, the
    # framework's own log). What they do not cover of the first call is
    # reported as unattributed, never folded into a phase.
    phase_names = ()
    phase_sources = {}
    # How sync() waits (recorded with every run).
    sync_method = "none needed: the call returns when the work is done"

    def __init__(self):
        self._env = {}
        self._cache = {"kind": "none", "persistent": False, "note": "this backend has no compile cache"}
        self.recorder = Recorder()
        self.requested_precision = "default"
        self.observed = None  # observe_precision's answer, once precision_report has asked

    # -- compile anatomy (--mode anatomy; docs/anatomy.md) ----------------------
    def anatomy_session(self):
        """An object with begin() (before the first call), end() (after the
        measured calls) and report(spans, t_first_call, t_first_call_end) ->
        {"items": [...],
        "mapping", "sources"} (worker/jitbench_worker/anatomy.py), or None where
        the adapter has no anatomy (the run then reports none)."""
        return None

    def profiler_active(self):
        """Whether a framework profiler session is open in this process (None:
        the adapter cannot tell); every run reports it."""
        return None

    # -- warm_process: an interactive session that already compiled something --
    def prepare_warm_process(self):
        """Compile and run an unrelated function, then clear in-memory caches."""

    def adopt(self, fn):
        """A callable the user compiled with their own JIT (jitbench measure),
        made to follow the case's cache policy where the adapter must act for it
        to; returned unchanged otherwise (the framework's settings already apply)."""
        return fn

    def fresh(self, fn):
        """A new function object with fn's code, as re-running a notebook cell gives."""
        import types

        return types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)

    # -- what the framework reported -------------------------------------------
    def collect_events(self):
        """Adds events the framework reports only after the fact (its log) to the
        recorder; called once, after the measured calls."""

    def summarize(self, window):
        """What the framework reported inside one window of recorder events:
        {"phases": {name: s}, "compiles": k or None, "compiled_functions": {name: k} or None,
        "cache": {"hits", "misses", ...} or {} when the framework reports no cache reads}."""
        return {"phases": dict(window["phases"]),
                "compiles": window["counts"].get("compiles", 0) if self.phase_names else None,
                "compiled_functions": None, "cache": {}}

    def pending(self, out):
        """True when out (or the device) still has queued work after sync():
        the check that sync() really waited. None where the framework cannot tell
        or computes synchronously."""
        return None

    def device_peak_bytes(self):
        """Device memory peak where the framework reports it, else None."""
        return None

    # -- precision -------------------------------------------------------------
    def apply_precision(self, requested):
        """`highest` sets IEEE float32 products where the framework could shorten
        them; `default` leaves the framework's own setting."""
        self.requested_precision = requested

    def observe_precision(self, fn, inputs):
        """What the framework reports of the arithmetic the measured function
        was compiled for ({"observed": True, "source", ...}), read after the clock;
        None where it reports nothing (the claim is then declared, not observed)."""
        return None

    def precision_report(self, fn, inputs, dtype, observed=None):
        """precision_info with the observation beside it; the adapter keeps what
        it observed (self.observed), which its precision_info may read.
        observed: the observation the case's first process made (shared.py),
        taken instead of observing again (JAX: one lowering less per process)."""
        self.observed = observed if observed is not None else self.observe_precision(fn, inputs)
        info = self.precision_info(dtype)
        info["observation"] = self.observed or {
            "observed": False,
            "note": "declared, not observed: the format follows from the settings read back and the rule"}
        return info

    def precision_info(self, dtype):
        """{"requested", "matmul": the format float32 products are computed in,
        "settings": the framework settings read back, "rule": why}."""
        return {"requested": self.requested_precision, "matmul": "fp64" if dtype == "f64" else "ieee_fp32",
                "settings": {}, "rule": "computed on the CPU in IEEE arithmetic"}

    # -- capabilities an adapter may lack ----------------------------------------
    def aot_compile(self, fn, inputs, clock):
        """Compiles fn for inputs through the framework's ahead-of-time path
        without running it, each step read on clock(): returns (compiled,
        {"trace_s", "lower_s", "compile_s"}). Raises Unsupported where the
        framework has no such path (the cross-check is then a warn, not a run)."""
        raise Unsupported(f"{self.name} has no ahead-of-time compile path to cross-check")

    def count_first_call(self, fn, inputs, mark):
        """--mode count: the first call, with mark(name) called after it (or
        after each stage of it, where a boundary inside it can be marked:
        "first_call.<stage>"). Returns (output, how it was split, or why not).
        Here: one call, undivided."""
        out = self.sync(fn(*inputs))
        mark("first_call")
        return out, ("undivided: nothing is compiled" if not self.phase_names else
                     f"undivided: {self.name} has no boundary inside its first call that jitbench can mark")

    def aot_prepare(self, fn, inputs):
        """Before the AOT process's clock: the framework's one-time dispatch
        set-up that the measured first call pays outside every compile event
        (so that no phase counts it), done here on another function so that
        the clocked ahead-of-time steps compare like with like. Returns a short
        description of what it did ("" for nothing)."""
        return ""

    # -- phases -------------------------------------------------------------
    def import_framework(self, dtype: str, cache_dir, cache_policy="cold_cache"):
        """Imports the framework with the cache settings of cache_policy: warm_cache
        turns its persistent compile cache on in cache_dir; cold_cache and
        warm_process keep the framework's defaults, with any cache it writes by
        default redirected into cache_dir (emptied by jitbench before the run)."""
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

    def cache_readback(self) -> dict:
        """The framework's cache settings as the framework reports them now (its
        config values, not what the adapter meant to set): {"values": {name: value},
        "dirs": [directories it reads or writes compiled code in], "not_controlled":
        [caches outside any directory jitbench can empty]}. {} for a backend with
        no compile cache; adapters of frameworks with one override it."""
        return {}

    def cache_report(self, case_dir) -> dict:
        """The `cache` field of a result: the settings the adapter applied, what
        the framework reads back, and which of its cache directories lie outside
        the case's own (jitbench's check of a cold run names them)."""
        report = dict(self._cache)
        readback = self.cache_readback()
        if readback:
            report["readback"] = readback.get("values", {})
            dirs = [d for d in readback.get("dirs", []) if d]
            report["outside_case_dir"] = [d for d in dirs if not _inside(d, case_dir)]
            if readback.get("not_controlled"):
                report["not_controlled"] = readback["not_controlled"]
        return report

    def env_applied(self) -> dict:
        return self._env

    def set_env(self, key: str, value: str):
        import os

        os.environ[key] = value
        self._env[key] = value
