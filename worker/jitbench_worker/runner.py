"""Where a cold run and a warm run are timed. Backend-agnostic: the adapter
knows how to import, initialise, move data, synchronise and listen to its
framework's compile events; the workload knows its inputs, its float64
reference and its tolerance.

Cache modes (--cache-mode):
  cold_cache    fresh process, empty compile cache (jitbench empties it)
  warm_cache    fresh process, compile cache primed by an earlier process
  warm_process  framework imported and initialised, an unrelated function
                compiled, in-memory caches cleared; then a NEW function object's
                first call is measured (the notebook case). import_s is still
                reported but is not part of this mode's time to first result.
"""

import os
import time

from . import backends, workloads
from .backends.base import DeviceUnavailable, MissingDependency, Unsupported


def _now() -> float:
    return time.perf_counter()


def _status_kib(field: str):
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _compiles(adapter, rec):
    """Compiles in a recorded window: 0 when the framework counts them and none
    happened, None when it does not report compiles at all."""
    return rec["counts"].get("compiles", 0) if adapter.phase_names else None


def run(channel, args) -> int:
    adapter = backends.create(args.backend)
    workload = workloads.get(args.workload, args.workload_path)
    build = workload.IMPLEMENTATIONS.get(adapter.framework)
    if build is None:
        channel.send("skip", status="warn", reason=f"unsupported: {args.workload} has no {adapter.framework} implementation")
        return 0
    if args.cache_mode == "warm_cache" and not adapter.has_compile_cache:
        channel.send("skip", status="warn", reason=f"unsupported: {adapter.name} has no compile cache to warm")
        return 0
    cache_dir = os.environ.get("JITBENCH_CACHE_DIR") or None
    for key, value in workloads.env_for(workload, args.n).items():
        if key == "XLA_FLAGS" and os.environ.get(key):
            value = f"{os.environ[key]} {value}"  # XLA reads the last of repeated flags
        adapter.set_env(key, value)

    # import_s: the framework's import and its device initialisation, proven by
    # one tiny synchronized operation.
    t_start = _now()
    try:
        adapter.import_framework(args.dtype, cache_dir)
    except MissingDependency as exc:
        channel.send("skip", status="warn", reason=f"missing_dependency: {exc.package}", detail=str(exc.__cause__ or exc))
        return 0
    try:
        adapter.init_device()
    except DeviceUnavailable as exc:
        channel.send("skip", status="warn", reason="gpu_unavailable", detail=str(exc), backend=adapter.info())
        return 0
    t_import = _now()
    memory = {"rss_after_import_kib": _status_kib("VmRSS")}
    if args.cache_mode == "warm_process":
        adapter.prepare_warm_process()
        t_import = _now()  # the session's own warm-up is not part of any phase

    # setup_s: inputs built on the host, moved to the device, function wrapped.
    try:
        host_inputs = workload.make_inputs(args.n, args.dtype, args.seed)
        dev_inputs = tuple(adapter.to_device(x) for x in host_inputs)
        adapter.sync(dev_inputs)
        fn = build(adapter, args.n, args.dtype)
    except Unsupported as exc:
        channel.send("skip", status="warn", reason=f"unsupported: {exc}")
        return 0
    memory["rss_before_first_call_kib"] = _status_kib("VmRSS")

    adapter.start_recording()
    t_setup = _now()
    out = adapter.sync(fn(*dev_inputs))
    t_first = _now()
    first = adapter.stop_recording()
    memory["rss_after_first_call_kib"] = _status_kib("VmRSS")
    memory["hwm_after_first_call_kib"] = _status_kib("VmHWM")

    result = {
        "mode": args.mode,
        "cache_mode": args.cache_mode,
        "ttfr_includes_import": args.cache_mode != "warm_process",
        "import_s": t_import - t_start,
        "setup_s": t_setup - t_import,
        "first_call_s": t_first - t_setup,
        "first_call": {"phases": first["phases"], "phase_names": list(adapter.phase_names)},
        "compiles": {"first_call": _compiles(adapter, first)},
        "cache_events": first.get("cache", {}),
    }
    if adapter.interpreter_only:
        result["interpreter_only"] = True
    adapter.start_recording()
    if args.mode == "cold":
        out = adapter.sync(fn(*dev_inputs))
        t_second = _now()
        result["second_call_s"] = t_second - t_first
        result["total_s"] = t_second - t_start
    else:
        calls = []
        for _ in range(args.warm_iters):
            t0 = time.perf_counter_ns()
            out = adapter.sync(fn(*dev_inputs))
            calls.append((time.perf_counter_ns() - t0) / 1e9)
        result["calls_s"] = calls
        result["total_s"] = _now() - t_start
    later = adapter.stop_recording()
    result["compiles"]["later_calls"] = _compiles(adapter, later)
    memory["hwm_kib"] = _status_kib("VmHWM")
    memory["device_peak_bytes"] = adapter.device_peak_bytes()
    result["memory"] = memory

    # Verification happens after the clock stops, on the last output. An
    # unverifiable result is never reported as ok.
    try:
        verify, info = workload.check(adapter.to_numpy(out), host_inputs, args.n, args.dtype, args.seed)
    except ModuleNotFoundError as exc:
        if exc.name != "numpy":
            raise
        channel.send("skip", status="warn", reason="missing_dependency: numpy",
                     detail="numpy is needed to verify the result against the float64 reference")
        return 0
    probe = getattr(fn, "memory_probe", None)
    if probe is not None:  # an extra compile, after the clock, outside the recorded window
        memory["compiled"] = probe(*dev_inputs)
    result.update(
        verify=verify,
        workload=info,
        backend=adapter.info(),
        device=adapter.device(),
        cache=adapter.cache_settings(),
        env=adapter.env_applied(),
    )
    channel.send("result", **result)
    return 0
