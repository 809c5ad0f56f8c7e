"""Where a cold run and a warm run are timed. Backend-agnostic: the adapter
knows how to import, initialise, move data, synchronise and listen to its
framework's compile events; the workload knows its inputs, its float64
reference and its tolerance. The steps have the same names as in the native
worker (native/main.cc): import, setup, measure, verify, report.

Cache policies (--cache-policy, the same name as on jitbench's command line):
  cold_cache    fresh process, the framework's default cache settings, every
                cache it writes by default redirected to an empty directory
  warm_cache    fresh process, persistent compile cache on, primed by an
                earlier process (the priming run pays for writing it)
  warm_process  framework imported and initialised, an unrelated function
                compiled, in-memory caches cleared; then a NEW function object's
                first call is measured (the notebook case). import_s is still
                reported but is not part of this mode's time to first result.

Clocks: import_s, setup_s, first_call_s, second_call_s (cold) and each warm
call are read with time.perf_counter(); between the first and the second call
nothing but the clock is read, so second_call_s holds no bookkeeping. Compile
events are timestamped by the hooks and split into windows afterwards.
"""

import os
import math
import time

from . import backends, local_modules, verify, workloads
from .backends.base import DeviceUnavailable, MissingDependency, Unsupported
from .order_stats import order_statistic_rank


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


class Skip(Exception):
    """Ends the run with a skip message (warn): reason, detail, backend info."""

    def __init__(self, reason, detail=None, backend=None):
        super().__init__(reason)
        self.reason, self.detail, self.backend = reason, detail, backend


def import_step(adapter, args, cache_dir):
    """import_s: the framework's import, its precision setting and its device
    initialisation, proven by one tiny synchronized operation."""
    t_start = _now()
    try:
        adapter.import_framework(args.dtype, cache_dir, args.cache_policy)
    except MissingDependency as exc:
        raise Skip(f"missing_dependency: {exc.package}", exc.detail()) from None
    adapter.apply_precision(args.precision)
    try:
        adapter.init_device()
    except DeviceUnavailable as exc:
        raise Skip("gpu_unavailable", str(exc), adapter.info()) from None
    t_import = _now()
    memory = {"rss_after_import_kib": _status_kib("VmRSS")}
    if args.cache_policy == "warm_process":
        adapter.prepare_warm_process()
        t_import = _now()  # the session's own warm-up is not part of any phase
    return t_start, t_import, memory


def setup_step(adapter, workload, build, args):
    """setup_s: inputs built on the host, moved to the device, function wrapped."""
    try:
        host_inputs = workload.make_inputs(args.n, args.dtype, args.seed)
        dev_inputs = tuple(adapter.to_device(x) for x in host_inputs)
        adapter.sync(dev_inputs)
        fn = build(adapter, args.n, args.dtype)
    except Unsupported as exc:
        raise Skip(f"unsupported: {exc}") from None
    except DeviceUnavailable as exc:
        raise Skip("gpu_unavailable", str(exc), adapter.info()) from None
    return host_inputs, dev_inputs, fn


def interval_within(xs, target_pct, confidence=0.99):
    """--target-ci's stopping rule for warm calls: the 99% order-statistic
    interval of the median within +-target_pct % of it. jitbench checks every
    early stop on the calls reported (src/run/protocol.cc)."""
    k = order_statistic_rank(len(xs), confidence)
    if k == 0:
        return False
    v = sorted(xs)
    n = len(v)
    med = v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
    return med != 0 and max(med - v[k - 1], v[n - k] - med) / abs(med) * 100.0 <= target_pct


def _worth_checking(n, min_iters):
    """After every call up to 100, then every 5%: the check sorts the calls."""
    return n >= (min_iters or 0) and (n <= 100 or n % max(1, n // 20) == 0)


def measure_step(adapter, fn, dev_inputs, args):
    """The first call, then the second (cold) or warm_iters calls (warm), back to
    back. Returns the clock readings and the outputs to verify."""
    session = adapter.anatomy_session() if args.mode == "anatomy" else None
    if args.mode == "anatomy" and session is None:
        raise Skip(f"unsupported: {adapter.name} has no compile anatomy")
    if session is not None:
        session.begin()  # before the clock, as the AOT process prepares before its own
    adapter.recorder.start()
    t_setup = _now()
    first = adapter.sync(fn(*dev_inputs))
    t_first = _now()
    if args.mode in ("cold", "anatomy"):
        last = adapter.sync(fn(*dev_inputs))
        t_end = _now()
        calls = None
    else:
        calls, last, total = [], first, 0.0
        target = getattr(args, "warm_target_ci", None)
        min_time = getattr(args, "warm_min_time", None)
        least = args.warm_min_iters or 0
        for _ in range(args.warm_iters):
            t0 = time.perf_counter_ns()
            last = adapter.sync(fn(*dev_inputs))
            calls.append((time.perf_counter_ns() - t0) / 1e9)
            total += calls[-1]  # summed in order: jitbench sums the reported calls alike to check the stop
            if min_time is not None and len(calls) >= least and total >= min_time:
                break
            if target is not None and _worth_checking(len(calls), args.warm_min_iters) and \
                    interval_within(calls, target):
                break
        t_end = _now()
    adapter.recorder.stop()
    profiler = adapter.profiler_active()  # after the clock stopped: nothing read between the calls
    if session is not None:
        session.end()
    return {"t_setup": t_setup, "t_first": t_first, "t_end": t_end, "calls": calls, "first": first, "last": last,
            "anatomy": session, "profiler": profiler}


def count_step(adapter, fn, dev_inputs, args, counter):
    """--mode count: the first call, split where the adapter can mark a
    boundary inside it (count_first_call), then a second call and
    args.count_calls warm calls, a mark after each: what lies between two
    marks is that phase's instruction count (counting.py). The clocks are read
    as in a cold run, but a counted process runs many times slower: its times
    are not measurements (jitbench never takes them for any)."""
    adapter.recorder.start()
    t_setup = _now()
    first, split = adapter.count_first_call(fn, dev_inputs, counter.mark)
    t_first = _now()
    last = adapter.sync(fn(*dev_inputs))
    counter.mark("second_call")
    t_second = _now()
    for _ in range(args.count_calls):
        last = adapter.sync(fn(*dev_inputs))
    counter.mark("warm_calls")
    t_end = _now()
    adapter.recorder.stop()
    return {"t_setup": t_setup, "t_first": t_first, "t_second": t_second, "t_end": t_end, "calls": None,
            "first": first, "last": last, "profiler": adapter.profiler_active(),
            "count": {**counter.report(), "warm_calls": args.count_calls, "first_call_split": split}}


def aot_step(adapter, fn, dev_inputs):
    """The cross-check run (--mode aot): the same function compiled through the
    framework's ahead-of-time path (the adapter's aot_compile; one without it
    raises Unsupported), each step timed by jitbench's own clock, in a process of
    its own. Its steps are compared with the event-based phases of the cold runs
    (analysis.json: crosscheck). The framework's one-time dispatch set-up is
    done first (aot_prepare), off the clock and outside the recorded window:
    the cold runs spend it outside every event, so no phase holds it."""
    t0 = _now()
    prepared = adapter.aot_prepare(fn, dev_inputs)
    prepare_s = _now() - t0
    adapter.recorder.start()
    t_setup = _now()
    try:
        compiled, steps = adapter.aot_compile(fn, dev_inputs, _now)
    except Unsupported as exc:
        adapter.recorder.stop()
        raise Skip(f"unsupported: {exc}") from None
    t3 = _now()
    out = adapter.sync(compiled(*dev_inputs))
    t_end = _now()
    adapter.recorder.stop()
    return {"t_setup": t_setup, "t_first": t_end, "t_end": t_end, "calls": None, "first": out, "last": out,
            "aot": {**steps, "execute_s": t_end - t3, **({"dispatch_setup_s": prepare_s} if prepared else {})}}


def _finite_verdict(verdict):
    """A verdict with NaN or infinity in it (an output that holds NaN gives an
    error of NaN, which compares as within any tolerance) is a failed one; the
    non-finite numbers are kept as text so that the message can carry them."""
    found = []

    def clean(x):
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [clean(v) for v in x]
        if isinstance(x, float) and not math.isfinite(x):
            found.append(repr(x))
            return repr(x)
        return x

    out = clean(dict(verdict))
    if found:
        out["ok"] = False
        out["message"] = (f"the result holds {found[0]}: not a number the reference can confirm"
                          + (f" ({verdict.get('message')})" if verdict.get("message") else ""))
    return out


def verify_step(adapter, workload, outputs, host_inputs, args, ctx):
    """Both the compiling first call's output and the last one, against the
    float64 reference, after every clock has stopped."""
    check = workload.check
    extra = {"ctx": ctx} if verify.accepts_context(check) else {}
    try:
        first, info = check(adapter.to_numpy(outputs["first"]), host_inputs, args.n, args.dtype, args.seed, **extra)
        last, info = check(adapter.to_numpy(outputs["last"]), host_inputs, args.n, args.dtype, args.seed, **extra)
    except ModuleNotFoundError as exc:
        if exc.name != "numpy":
            raise
        raise Skip("missing_dependency: numpy",
                   "numpy is needed to verify the result against the float64 reference") from None
    first, last = _finite_verdict(first), _finite_verdict(last)
    if not extra:
        for v in (first, last):
            v.setdefault("tolerance_basis", {"precision": ctx.matmul,
                                             "basis": "the workload's own tolerance (its check takes no precision)"})
    return first, last, info


def open_shared(args):
    """The case's shared reference and observation (shared.py), or None where
    jitbench gives no descriptor for it."""
    fd = getattr(args, "case_shared_fd", None)
    if fd is None:
        return None
    from . import shared

    return shared.CaseShared.open(fd, args.case_shared or "the case's shared reference", args.case_shared_sha256,
                                  shared.identity(args))


def observe_step(adapter, fn, dev_inputs, args, shared):
    """The precision the framework used (observed once per case: the case's
    first process observes, the later ones read its observation) and the
    verification context, seeded with the case's shared float64 reference."""
    observed = shared.observation if shared is not None else None
    info = adapter.precision_report(fn, dev_inputs, args.dtype, observed=observed)
    memo = shared.usable_memo("fp64" if args.dtype == "f64" else info["matmul"]) if shared is not None else None
    ctx = verify.Context(args.dtype, info["matmul"], args.precision, memo=memo)
    ctx.info = info
    ctx.observation_made = observed is None
    ctx.observation = adapter.observed
    return ctx


def report_step(adapter, args, clocks, memory, ctx, verdicts, info):
    # From the first call's clock on: events the framework reports after the fact
    # (TensorFlow's log) may carry earlier times, such as a warm_process warm-up.
    first_window = adapter.recorder.window(clocks["t_setup"], clocks["t_first"])
    first_w = adapter.summarize(first_window)
    later_w = adapter.summarize(adapter.recorder.window(clocks["t_first"], float("inf")))
    phases = {k: v for k, v in first_w["phases"].items() if k in adapter.phase_names}
    result = {
        "mode": args.mode,
        "cache_policy": args.cache_policy,
        "ttfr_includes_import": args.cache_policy != "warm_process",
        "import_s": clocks["t_import"] - clocks["t_start"],
        "setup_s": clocks["t_setup"] - clocks["t_import"],
        "first_call_s": clocks["t_first"] - clocks["t_setup"],
        "first_call": {"phases": phases, "phase_names": list(adapter.phase_names),
                       "phase_sources": {k: adapter.phase_sources.get(k, "") for k in adapter.phase_names}},
        "compiles": {"first_call": first_w["compiles"], "later_calls": later_w["compiles"],
                     "first_call_by_function": first_w["compiled_functions"]},
        "cache_events": first_w["cache"],
        "cache_events_later": later_w["cache"],
        "sync": {"method": adapter.sync_method, "pending_after_last_call": clocks["pending"]},
        "precision": ctx.info,
        "memory": memory,
        "verify": verdicts[1],
        "verify_first": verdicts[0],
        "workload": info,
        # What the core reads off the workload (throughput, ceiling, accuracy): a
        # user workload's record is known only to the worker that loaded it.
        "workload_record": args.workload_record,
        # The user's own modules this process loaded, by path and sha256 (local_modules.py).
        "local_modules": local_modules.local_modules(local_modules.kept_files(args.workload_path,
                                                                              getattr(args, "workload_module", None))),
        "backend": adapter.info(),
        "device": adapter.device(),
        "cache": adapter.cache_report(os.environ.get("JITBENCH_CACHE_DIR") or None),
        "env": adapter.env_applied(),
    }
    # Every run says whether it carried the anatomy's instrumentation (the
    # measured cold and warm runs never do: jitbench checks what they record).
    result["instrumentation"] = {"anatomy": clocks.get("anatomy") is not None,
                                 "profiler_session": clocks.get("profiler")}
    if clocks.get("anatomy") is not None:
        result["anatomy"] = clocks["anatomy"].report(first_window.get("spans", {}), clocks["t_setup"],
                                                     clocks["t_first"])
        _keep_stream(clocks["anatomy"])
    if args.mode in ("cold", "anatomy"):
        result["second_call_s"] = clocks["t_end"] - clocks["t_first"]
    elif args.mode == "count":
        result["second_call_s"] = clocks["t_second"] - clocks["t_first"]
        result["count"] = clocks["count"]
    elif args.mode == "warm":
        result["calls_s"] = clocks["calls"]
    else:
        result["aot"] = clocks["aot"]
    result["total_s"] = clocks["t_end"] - clocks["t_start"]
    if adapter.interpreter_only:
        result["interpreter_only"] = True
    if getattr(ctx, "shared", None) is not None:
        result["case_shared"] = ctx.shared
    return result


def _keep_stream(session):
    """JITBENCH_ANATOMY_STREAM=FILE: the raw event stream the anatomy was made
    from, for replay tests (tests/data/anatomy/)."""
    path = os.environ.get("JITBENCH_ANATOMY_STREAM")
    if path and session.stream is not None:
        import json

        with open(path, "w") as f:
            json.dump(session.stream, f)


class _NoCounter:
    """Every mode but count: marks cost nothing and count nothing."""

    def mark(self, name):
        pass


def _counter(args):
    if args.mode != "count":
        return _NoCounter()
    from . import counting

    counter = counting.open_counter(args.count_source)
    counter.mark("harness_start")
    return counter


def run(channel, args) -> int:
    adapter = backends.create(args.backend)
    args.workload_module = workload = workloads.get(args.workload, args.workload_path)  # local_modules' exclusions
    # A user file's CATALOG is read from the module already loaded; a bad one fails the case here.
    args.workload_record = workloads.record(args.workload, args.workload_path, workload)
    build = workload.IMPLEMENTATIONS.get(adapter.framework)
    try:
        if build is None:
            raise Skip(f"unsupported: {args.workload} has no {adapter.framework} implementation")
        if args.cache_policy == "warm_cache" and not adapter.has_compile_cache:
            raise Skip(f"unsupported: {adapter.name} has no compile cache to warm")
        cache_dir = os.environ.get("JITBENCH_CACHE_DIR") or None
        for key, value in workloads.env_for(workload, args.n).items():
            if key == "XLA_FLAGS" and os.environ.get(key):
                value = f"{os.environ[key]} {value}"  # XLA reads the last of repeated flags
            adapter.set_env(key, value)

        # --mode count: a mark at each boundary (counting.py); the first covers the interpreter's start.
        counter = _counter(args)
        # The cache directory is watched by jitbench itself, from before the spawn.
        t_start, t_import, memory = import_step(adapter, args, cache_dir)
        counter.mark("import")
        host_inputs, dev_inputs, fn = setup_step(adapter, workload, build, args)
        counter.mark("setup")
        memory["rss_before_first_call_kib"] = _status_kib("VmRSS")
        if args.mode == "aot":
            clocks = aot_step(adapter, fn, dev_inputs)
        elif args.mode == "count":
            clocks = count_step(adapter, fn, dev_inputs, args, counter)
        else:
            clocks = measure_step(adapter, fn, dev_inputs, args)
        clocks.update(t_start=t_start, t_import=t_import, pending=adapter.pending(clocks["last"]))
        marks = {"end": clocks["t_end"]}
        adapter.collect_events()
        # Read after both calls: the peak of a cold run is the first call's compile.
        memory["hwm_after_calls_kib"] = _status_kib("VmHWM")
        memory["device_peak_bytes"] = adapter.device_peak_bytes()

        shared = open_shared(args)
        ctx = observe_step(adapter, fn, dev_inputs, args, shared)
        marks["observed"] = _now()
        first, last, winfo = verify_step(adapter, workload, clocks, host_inputs, args, ctx)
        if shared is not None:
            ctx.shared = shared.record(ctx.observation_made, ctx.computed, ctx)
        marks["verified"] = _now()
        # An extra compile, after the clock, outside the recorded window; a counting
        # process records no memory and would compile again under the tool: none.
        probe = getattr(fn, "memory_probe", None) if args.mode != "count" else None
        if probe is not None:
            memory["compiled"] = probe(*dev_inputs)
    except Skip as skip:
        return send_skip(channel, skip)
    result = report_step(adapter, args, clocks, memory, ctx, (first, last), winfo)
    result["harness"] = harness_buckets(t_start, marks)
    channel.send("result", **result)
    return 0


def send_skip(channel, skip) -> int:
    """The case cannot run here (warn, with its reason): said once, exit 0."""
    body = {"status": "warn", "reason": skip.reason}
    if skip.detail:
        body["detail"] = skip.detail
    if skip.backend:
        body["backend"] = skip.backend
    channel.send("skip", **body)
    return 0


def harness_buckets(t_start, marks):
    """The harness's own time, in buckets that tile the worker's life with the
    measured ones (import_s .. total_s): its first line -> t_start (its own
    modules, argument parsing, the hello, the workload's lookup), t_end ->
    observed (pending check, events collected, memory read, precision observed),
    observed -> verified (the float64 verification), verified -> now (the
    memory probe's compile, the result built). Both ends are stamped on
    CLOCK_MONOTONIC, so that jitbench can place them between its spawn and the
    process's exit (docs/protocol.md)."""
    from . import SAME_CLOCK, STARTED_MONOTONIC_NS, STARTED_PERF

    sent_ns = time.monotonic_ns()
    t_sent = sent_ns / 1e9 if SAME_CLOCK else _now()  # one reading, as at the first line

    def stamp(t):  # a perf_counter reading as CLOCK_MONOTONIC, from the first line's pair of readings
        return STARTED_MONOTONIC_NS + round((t - STARTED_PERF) * 1e9)

    # The marks between the buckets: jitbench checks that each bucket is the span between its two
    # marks, so that no bucket's time can be reported in another (docs/protocol.md).
    return {"started_monotonic_ns": STARTED_MONOTONIC_NS, "sent_monotonic_ns": sent_ns if SAME_CLOCK else stamp(t_sent),
            "marks_monotonic_ns": {"measured_start": stamp(t_start), "measured_end": stamp(marks["end"]),
                                   "observed": stamp(marks["observed"]), "verified": stamp(marks["verified"])},
            "import_s": t_start - STARTED_PERF, "observe_s": marks["observed"] - marks["end"],
            "verify_s": marks["verified"] - marks["observed"], "report_s": t_sent - marks["verified"]}
