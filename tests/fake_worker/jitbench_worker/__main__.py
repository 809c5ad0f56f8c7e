"""A misbehaving stand-in for the real worker, for jitbench's e2e tests.

FAKE_WORKER_MODES="numpy=crash,numba=ok" picks a behaviour per backend
(FAKE_WORKER_MODE sets the default): ok, crash, hang, garbage, exit3,
wrong_answer, off_by (a failed check whose message does not state its numbers:
error FAKE_WORKER_ERROR, default 0.25, against a tolerance of 1e-4), noresult, missing, flood, nocache (reports no cache hit), and the
lies jitbench's checks must catch: lie_phases (phases longer than the first
call), lie_total (a total longer than the process lived), lie_segments (calls
longer than the total), unsync (work still queued after the clock), wrong_first
(the first call's result is wrong), huge (a first call of 1e308 s),
missing_total / missing_verify_first (a field a check needs left out),
hidden_phase (a negative phase not in phase_names), dup_phase (a phase declared
twice), bf16_cpu (bf16 products claimed on a CPU), cache_lie (a warm_cache hit
with the entry never read), hit_without_files (a warm_cache hit with nothing in
the cache), cold_hit (a cache hit claimed in a cold run), cold_write (a cache
file written in a cold run), outside_cache (a cache directory outside the
case's reported by the framework), env_cache (hits from JAX_COMPILATION_CACHE_DIR
when that variable reaches it), deep (a result line nested 70,000 deep),
tiny_calls (warm calls of 5e-324 s), harness (stamps its life and reports
the harness's buckets honestly, after 50 ms of "loading its modules"),
lie_harness (the same, claiming its harness import took no time), swallow_harness (the same, reporting
its harness import's time as verification: the buckets still add up, their marks do not), early_stop (under --warm-target-ci or
--warm-min-time, ends its warm calls at the least asked whether their interval is tight, or their time long enough, or not), chatty (writes to its log for
FAKE_WORKER_SLEEP seconds, its pid to FAKE_WORKER_PIDFILE), and the hazards
of issue 13: slow (sleeps
FAKE_WORKER_SLEEP seconds, default 3, then for as long as the file FAKE_WORKER_HOLD exists, at most 300 s), fork_linger / fork_setsid (leaves a
child holding the channel open for 60 s, in its group or in a session of its
own; its pid goes to FAKE_WORKER_PIDFILE), fill_disk (fills the file system of
FAKE_WORKER_FILL before reporting). FAKE_WORKER_PROBE=slow|fail makes the
probe sleep FAKE_WORKER_SLEEP seconds or exit 3.
FAKE_WORKER_AFFINITY_FILE=PATH: every measuring process appends the CPUs it may
run on (os.sched_getaffinity) to PATH, one line each (`run --affinity`'s test).
FAKE_WORKER_DRIFT=FILE:N makes the machine drift on cue: every cold process
appends a line to FILE, and from the (N+1)-th on its import, setup and first
call take twice as long (a machine that got busy halfway through a run).
FAKE_WORKER_SCALE_IN=TEXT:FACTOR multiplies import, setup and first call by
FACTOR in the processes whose log path (their stdout, in the run's out dir)
holds TEXT: one run's code slower than another's, also when measured again.
FAKE_WORKER_JITTER=sigma multiplies import, setup and first call by one lognormal factor and
draws the warm calls lognormal around 1 ms: a worker of known spread for
--target-ci's tests.
pool_anatomy: an anatomy whose pass_a waits for a thread pool (another thread's item, and what the events cover
outside the phases); lie_pool: that pool's item claims more wall time than its intervals cover;
lie_outside: the events outside the phases cover more than the first call's time outside them;
lie_thread: the pool's item names its thread without its thread time.
FAKE_WORKER_SLOW_PASS=f makes an anatomy process's pass_a take f times as long
(and its compile with it): a release that moved one sub-phase.
--mode count (run --count): reports its marks and, with --count-source
hardware, the instructions it "read" per phase (_count: FAKE_WORKER_COUNT_*);
lie_counts reports segments other than the marks it names; disorder_marks names its marks out of
order; crash_count aborts its counting processes only.
FAKE_WORKER_RELEASE=MODULE imports MODULE (installed in the pinned environment
the worker runs in) and takes the release's behaviour from it: SCALE multiplies
FAKE_WORKER_SCALE, SLOW_PASS FAKE_WORKER_SLOW_PASS, and LIE_ANATOMY = True makes
its anatomy processes lie_anatomy's (for bisect's tests across releases).
It speaks the protocol by hand so that the tests do not depend on the real
worker being right. Its own numbers are small and consistent: it sleeps as long
as the total it reports. Honest, it uses a compile cache the way a framework
does: under warm_cache the run that finds the case's cache empty writes an
entry (a miss), every later run reads it (a hit); cold runs report no cache."""

import argparse
import importlib
import json
import math
import os
import random
import pathlib
import subprocess
import sys
import tempfile
import time

START_NS, START_PERF = time.monotonic_ns(), time.perf_counter()  # its first line, as the real worker stamps it


def _linger(new_session):
    """A child that keeps the channel (fd 3 is inherited across fork) open."""
    pid = os.fork()
    if pid == 0:
        if new_session:
            os.setsid()
        time.sleep(60)
        os._exit(0)
    pidfile = os.environ.get("FAKE_WORKER_PIDFILE")
    if pidfile:
        with open(pidfile, "a") as f:
            f.write(f"{pid}\n")


def _fill(path):
    chunk = b"x" * (1 << 16)
    try:
        with open(path, "wb") as f:
            while True:
                f.write(chunk)
                f.flush()
    except OSError:
        pass


def use_cache(mode, policy):
    """What a framework's counters would say, after using the case's cache
    directory (JITBENCH_CACHE_DIR) as the mode says."""
    d = os.environ.get("JITBENCH_CACHE_DIR", "")
    entry = os.path.join(d, "entry.bin")
    if mode == "env_cache" and os.environ.get("JAX_COMPILATION_CACHE_DIR"):
        return {"hits": 1, "misses": 0}  # served from the user's own cache
    if policy != "warm_cache":
        if mode == "cold_write":
            with open(entry, "wb") as f:
                f.write(b"compiled")
        return {"hits": 1, "misses": 0} if mode == "cold_hit" else {}
    if mode == "nocache":
        return {"hits": 0, "misses": 1}
    if mode == "hit_without_files":
        return {"hits": 1, "misses": 0}
    if not os.path.exists(entry):
        with open(entry, "wb") as f:
            f.write(b"compiled")
        return {"hits": 0, "misses": 1}
    if mode != "cache_lie":
        with open(entry, "rb") as f:
            f.read()
    return {"hits": 1, "misses": 0}


def _tight(calls, target_pct):
    """--target-ci's rule, written apart from jitbench's: the 99% interval of the
    median from order statistics (exact binomial) within +-target_pct %."""
    n, k, below = len(calls), 0, 0
    while k < n // 2:
        below += math.comb(n, k)
        if below * 200 > 2 ** n:  # P(B <= k) > 0.005
            break
        k += 1
    if k == 0:
        return False
    v = sorted(calls)
    mid = (v[(n - 1) // 2] + v[n // 2]) / 2
    return max(mid - v[k - 1], v[n - k] - mid) <= mid * target_pct / 100


def _warm_calls(args, mode, jitter):
    """The warm calls: a fixed cycle, or lognormal draws (FAKE_WORKER_JITTER=sigma,
    a known spread); under --warm-target-ci ended by the rule (early_stop: at the
    least asked, tight or not)."""
    unit = 1.0 if args.warm_iters <= 1000 else 1e-3  # millions of calls (a large case file) in a second
    calls, total = [], 0.0
    for i in range(args.warm_iters):
        calls.append(0.001 * random.lognormvariate(0, jitter) if jitter else [0.001, 0.0011, 0.0009][i % 3] * unit)
        total += calls[-1]
        ruled = args.warm_target_ci is not None or args.warm_min_time is not None
        if ruled and len(calls) >= args.warm_min_iters and mode == "early_stop":
            break
        if args.warm_min_time is not None and len(calls) >= args.warm_min_iters and total >= args.warm_min_time:
            break
        if args.warm_target_ci is not None and len(calls) >= args.warm_min_iters and \
                _tight(calls, args.warm_target_ci):
            break
    return calls


def _status_kib(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return None


def _memory(mode):
    """The memory figures as the real worker reads them (runner.py): its RSS
    before the first call and its high-water mark after the calls, honestly
    read; then, as modes: harness_alloc (the harness touches 200 MiB after
    that reading, as verification might: the process's peak grows, the
    workload's does not), lie_peak_high (a high-water mark above the whole
    process's peak), lie_peak_low (one below the RSS it held before its first call)."""
    before = _status_kib("VmRSS")
    hwm = _status_kib("VmHWM")
    if mode == "harness_alloc":
        block = bytearray(200 << 20)
        for i in range(0, len(block), 4096):
            block[i] = 1
    if mode == "lie_peak_high":
        hwm = hwm * 10 + (1 << 20)
    if mode == "lie_peak_low":
        hwm = 1
    return {"rss_after_import_kib": before, "rss_before_first_call_kib": before, "hwm_after_calls_kib": hwm}


def _kill_jitbench(args):
    """FAKE_WORKER_KILL_JITBENCH=POINT: jitbench killed outright (SIGKILL) while
    this process runs, at POINT: cold_after_reference (a cold process of a case
    whose reference an earlier one made), warm, aot (the cross-check), anatomy;
    probe (the worker probe while jitbench starts, before any case) is sent by the probe.
    The worker itself then dies with jitbench (PR_SET_PDEATHSIG)."""
    point = os.environ.get("FAKE_WORKER_KILL_JITBENCH")
    if not point:
        return
    hit = (point == "cold_after_reference" and args.mode == "cold" and args.case_shared_sha256) or \
        (point in ("warm", "aot", "anatomy") and args.mode == point)
    if hit:
        import signal

        os.kill(os.getppid(), signal.SIGKILL)
        time.sleep(30)


def _case_shared(args):
    """The case's shared reference as the real worker keeps it (shared.py): made
    by the case's first process into the descriptor jitbench gives it, read
    (and its sha256 checked) by every later one."""
    if args.case_shared_fd is None:
        return None
    import hashlib

    if args.case_shared_sha256:
        data = os.read(args.case_shared_fd, 1 << 20)
        if hashlib.sha256(data).hexdigest() != args.case_shared_sha256:
            raise SystemExit("the case's shared reference was changed during the run")
        return {"reference": "read", "computed": [], "observation": "read", "wrote": False}
    data = f"fake reference of {args.backend} {args.workload}".encode()
    os.write(args.case_shared_fd, data)
    return {"reference": "computed", "computed": ["reference"], "observation": "made", "wrote": True,
            "sha256": hashlib.sha256(data).hexdigest()}


# --mode count: each phase's instructions (FAKE_WORKER_COUNT_<PHASE>=N overrides one), times
# FAKE_WORKER_COUNT_SCALE and a release's COUNT_SCALE (SCALE when it has none), each count spread by
# one lognormal factor of sigma FAKE_WORKER_COUNT_JITTER (default 0.0005: a counter's run-to-run spread).
_COUNTS = {"harness_start": 80e6, "import": 300e6, "setup": 20e6, "first_call": 500e6, "second_call": 100e3,
           "warm_calls": 1e6}


def _count(args, mode, release):
    """What a counting process reports: its marks, and (hardware) the segments it read. It can
    only report counts as a hardware counter would: under valgrind the counts are callgrind's.
    lie_counts: marks that are not the segments it reports."""
    scale = float(os.environ.get("FAKE_WORKER_COUNT_SCALE", "1")) * \
        getattr(release, "COUNT_SCALE", getattr(release, "SCALE", 1))
    sigma = float(os.environ.get("FAKE_WORKER_COUNT_JITTER", "0.0005"))
    segments = []
    for name, n in _COUNTS.items():
        n = float(os.environ.get(f"FAKE_WORKER_COUNT_{name.upper()}", n))
        if name in ("import", "setup", "first_call"):
            n *= scale
        if name == "warm_calls":  # 1e5 a call, over the calls asked for
            n *= args.count_calls / 10
        segments.append([name, round(n * random.lognormvariate(0, sigma))])
    marks = [s[0] for s in segments]
    if mode == "lie_counts":  # marks in order, but counts read at other boundaries
        segments[3:5] = [segments[4], segments[3]]
    if mode == "disorder_marks":
        marks = ["harness_start", "import", "setup", "first_call", "warm_calls", "second_call"]
    out = {"source": args.count_source, "marks": marks, "warm_calls": args.count_calls,
           "first_call_split": "undivided: the fake worker compiles nothing"}
    if args.count_source == "hardware":
        out["segments"] = segments
        out["scope"] = "the fake worker's own numbers"
    return out


def _release():
    """FAKE_WORKER_RELEASE's module, or None."""
    name = os.environ.get("FAKE_WORKER_RELEASE")
    return importlib.import_module(name) if name else None


def main():
    p = argparse.ArgumentParser(allow_abbrev=False)
    p.add_argument("command")
    p.add_argument("--fd", type=int)
    p.add_argument("--mode")
    p.add_argument("--backend", default="")
    p.add_argument("--check-devices", action="store_true")
    p.add_argument("--cache-policy", default="cold_cache")
    p.add_argument("--warm-iters", type=int, default=3)
    p.add_argument("--warm-min-iters", type=int, default=0)
    p.add_argument("--warm-target-ci", type=float, default=None)
    p.add_argument("--warm-min-time", type=float, default=None)
    p.add_argument("--dtype", default="f32")
    p.add_argument("--workload-path", default=None)
    p.add_argument("--workload", default="")
    p.add_argument("--case-shared-fd", type=int, default=None)
    p.add_argument("--case-shared-sha256", default=None)
    p.add_argument("--count-source", default=None)
    p.add_argument("--count-calls", type=int, default=10)
    args, _ = p.parse_known_args()
    ch = os.fdopen(args.fd, "w", buffering=1)

    def send(**m):
        ch.write(json.dumps(m) + "\n")
        ch.flush()

    send(type="hello", protocol=1, monotonic_ns=time.monotonic_ns())
    if args.command == "probe":
        probe = os.environ.get("FAKE_WORKER_PROBE", "ok")
        if probe == "slow":  # a probe that takes its time: a signal arrives while jitbench starts
            time.sleep(float(os.environ.get("FAKE_WORKER_SLEEP", "3")))
        if probe == "fail":
            print("the interpreter could not even be probed")
            return 3
        if os.environ.get("FAKE_WORKER_KILL_JITBENCH") == "probe":  # jitbench killed while it starts
            import signal

            print("probing")  # something in logs/probe.log
            sys.stdout.flush()
            os.kill(os.getppid(), signal.SIGKILL)
            time.sleep(30)
        names = ["python", "numpy", "numba", "jax_jit_cpu", "jax_jit_gpu"]
        dists = {"numpy": "fake"} if os.environ.get("FAKE_WORKER_DISTRIBUTIONS") != "none" else None
        if os.environ.get("FAKE_WORKER_DISTRIBUTIONS", "").startswith("numpy="):
            dists = {"numpy": os.environ["FAKE_WORKER_DISTRIBUTIONS"][len("numpy="):]}
        extra = {} if dists is None else {"distributions": dists}
        send(type="probe", python="3.fake", platform="fake", executable=sys.executable, **extra,
             implementation="CPython", packages={"numpy": "0.fake"},
             backends={n: {"available": True, "reason": ""} for n in names}, workloads=["matmul", "mc_pi"])
        send(type="bye")
        return 0

    modes = dict(kv.split("=") for kv in os.environ.get("FAKE_WORKER_MODES", "").split(",") if kv)
    mode = modes.get(args.backend, os.environ.get("FAKE_WORKER_MODE", "ok"))
    release = _release()
    if getattr(release, "LIE_ANATOMY", False) and args.mode == "anatomy":
        mode = "lie_anatomy"
    print("benchmarked code may print to stdout freely", flush=True)  # must land in the log, not the channel
    pidfile = os.environ.get("FAKE_WORKER_PIDFILE")
    if pidfile and mode == "chatty":
        with open(pidfile, "a") as f:
            f.write(f"{os.getpid()}\n")
    if mode == "chatty":  # keeps writing to its log for a while: an orphan would go on
        for i in range(int(float(os.environ.get("FAKE_WORKER_SLEEP", "3")) * 10)):
            print(f"still here {i}", flush=True)
            time.sleep(0.1)
    affinity_file = os.environ.get("FAKE_WORKER_AFFINITY_FILE")
    if affinity_file:
        with open(affinity_file, "a") as f:
            f.write(",".join(str(c) for c in sorted(os.sched_getaffinity(0))) + "\n")
    env_file = os.environ.get("FAKE_WORKER_ENV_FILE")  # the OMP_NUM_THREADS this worker was given
    if env_file:
        with open(env_file, "a") as f:
            f.write(os.environ.get("OMP_NUM_THREADS", "unset") + "\n")
    cache_events = use_cache(mode, args.cache_policy)
    jitter = float(os.environ.get("FAKE_WORKER_JITTER", "0"))  # lognormal sigma of the first call and warm calls
    result = dict(type="result", mode=args.mode, import_s=0.0001, setup_s=0.0001, first_call_s=0.0002,
                  verify={"ok": True}, verify_first={"ok": True}, device={"platform": "cpu", "kind": "cpu", "count": 1},
                  first_call={"phases": {"compile": 0.0001}, "phase_names": ["compile"],
                              "phase_sources": {"compile": "fake"}},
                  cache_events=cache_events,
                  cache={"kind": "fake", "persistent": args.cache_policy == "warm_cache",
                         "outside_case_dir": ["/home/user/.cache/fake"] if mode == "outside_cache" else []},
                  env={"JAX_COMPILATION_CACHE_DIR": os.environ.get("JAX_COMPILATION_CACHE_DIR")},
                  precision={"requested": "default", "matmul": "bf16" if mode == "bf16_cpu" else
                             "fp64" if args.dtype == "f64" else "ieee_fp32",
                             "settings": {}, "rule": "fake", "observation": {"observed": False, "note": "fake"}},
                  sync={"method": "fake", "pending_after_last_call": mode == "unsync"})
    # Whether the run carried the compile anatomy's instrumentation (profiled_cold: a
    # measured cold run that says it had a profiler open).
    # Lying modes: anatomy_in_cold, a measured cold run that reports anatomy items
    # (it ran the instrumentation); anatomy_uninstrumented, an anatomy run that
    # says it carried none; no_instrumentation, runs that send no record at all.
    result["instrumentation"] = {"anatomy": args.mode == "anatomy" and mode != "anatomy_uninstrumented",
                                 "profiler_session": args.mode == "anatomy" or mode == "profiled_cold"}
    if mode == "no_instrumentation" and args.mode != "anatomy":
        del result["instrumentation"]
    if args.mode in ("cold", "anatomy", "count"):
        result["second_call_s"] = 0.0001
    if args.mode == "count":
        result["count"] = _count(args, mode, release)
    if args.mode == "anatomy" or (mode == "anatomy_in_cold" and args.mode == "cold"):
        # lie_anatomy: two passes that add up to more than the compile they are part of (beyond the 100 us slack).
        passes = (0.0008, 0.0006) if mode == "lie_anatomy" else (0.00006, 0.00003)
        # FAKE_WORKER_SLOW_PASS=f: a release whose pass_a takes f times as long (the compile with it).
        slow = float(os.environ.get("FAKE_WORKER_SLOW_PASS", "1")) * getattr(release, "SLOW_PASS", 1)
        passes = (passes[0] * slow, passes[1])
        compile_s = 0.0001 + 0.00006 * (slow - 1)
        result["anatomy"] = {"items": [{"path": ["compile"], "s": compile_s, "source": "jitbench phase"},
                                       {"path": ["compile", "pass_a"], "s": passes[0], "source": "fake pass timer"},
                                       {"path": ["compile", "pass_b"], "s": passes[1], "source": "fake pass timer"}],
                             "mapping": "fake", "sources": "fake"}
        # overlap_anatomy: the passes' sum fits the compile, their intervals overlap (beyond 1 us).
        ivs = ([[0.0, 0.0001]], [[0.00001, 0.00007]], [[0.00004, 0.00007]]) if mode == "overlap_anatomy" else \
            ([[0.0, compile_s]], [[0.0, passes[0]]], [[passes[0], passes[0] + 0.00003]])
        if mode != "lie_anatomy":
            for item, iv in zip(result["anatomy"]["items"], ivs):
                item["intervals"] = iv
        # pool_anatomy: pass_a waits for a thread pool's stage (two threads: 40 us of thread time, 25 us waited
        # for), and the events cover 5 us of the first call outside the phases; lie_pool: the pool's stage claims
        # more wall time than its events' intervals cover.
        if mode in ("pool_anatomy", "lie_pool", "lie_outside", "lie_thread"):
            ivs = [[0.00001, 0.000012]] if mode == "lie_pool" else [[0.00001, 0.00006]]
            pool = {"path": ["compile", "pass_a", "kernels"], "s": 0.000025, "thread_s": 0.00004,
                    "thread": "fake-pool", "source": "fake pool event", "intervals": ivs}
            if mode == "lie_thread":
                del pool["thread_s"]
            result["anatomy"]["items"].append(pool)
            result["anatomy"]["outside_phases"] = {"events": 3, "wall_s": 0.000005, "thread_s": 0.000007,
                                                   "first_call_s": 0.00001}
            if mode == "lie_outside":
                result["anatomy"]["outside_phases"]["wall_s"] = 100.0
    if mode == "hidden_profiler" and args.mode == "cold":
        # Profiles and says nothing: leaves the profiler's output where the profiler puts it.
        out = pathlib.Path(tempfile.gettempdir()) / "jitbench-anatomy-x" / "plugins" / "profile" / "run"
        out.mkdir(parents=True, exist_ok=True)
        (out / "host.xplane.pb").write_bytes(b"")
    _kill_jitbench(args)
    shared = _case_shared(args)
    if shared is not None:
        result["case_shared"] = shared
    result["memory"] = _memory(mode)
    if args.mode == "warm":
        result["calls_s"] = _warm_calls(args, mode, jitter)
    elif args.mode == "aot":
        # phases_disagree: the ahead-of-time compile takes 50 ms, the events claimed 0.1 ms.
        compile_s = 0.05 if mode == "phases_disagree" else 0.00005
        result["aot"] = {"trace_s": 0.00002, "lower_s": 0.00002, "compile_s": compile_s, "execute_s": 0.00001}
        result["first_call_s"] = 0.0001 + compile_s
    if jitter:  # one factor for the three: TTFR is lognormal with this sigma
        f = random.lognormvariate(0, jitter)
        for k in ("import_s", "setup_s", "first_call_s"):
            result[k] *= f
        result["first_call"]["phases"] = {k: v * f for k, v in result["first_call"]["phases"].items()}
    # a slower (or faster) release of the same code
    scale = float(os.environ.get("FAKE_WORKER_SCALE", "1")) * getattr(release, "SCALE", 1)
    # FAKE_WORKER_SCALE_IN=TEXT:FACTOR: FACTOR where the process's log (its stdout, under the run's out dir)
    # has TEXT in its path: one run's code slower than another's, whenever either is measured again.
    scale_in = os.environ.get("FAKE_WORKER_SCALE_IN")
    if scale_in:
        text, factor = scale_in.rsplit(":", 1)
        try:
            log = os.readlink("/proc/self/fd/1")
        except OSError:
            log = ""
        if text in log:
            scale *= float(factor)
    drift = os.environ.get("FAKE_WORKER_DRIFT")
    if drift and args.mode == "cold":
        counter, after = drift.rsplit(":", 1)
        with open(counter, "a+") as f:
            f.write(f"{os.getpid()}\n")
            f.seek(0)
            started = len(f.read().splitlines())
        if started > int(after):
            scale *= 2.0
    if scale != 1:
        for k in ("import_s", "setup_s", "first_call_s"):
            result[k] *= scale
        result["first_call"]["phases"] = {k: v * scale for k, v in result["first_call"]["phases"].items()}
        if "calls_s" in result:
            result["calls_s"] = [c * scale for c in result["calls_s"]]
    segments = (result["import_s"] + result["setup_s"] + result["first_call_s"] +
                sum(result.get("calls_s", [result.get("second_call_s", 0.0)])))
    result["total_s"] = segments + 0.0001
    if mode in ("harness", "lie_harness", "swallow_harness"):
        time.sleep(0.05)  # its own modules, before import_s's clock
    t_clock = time.perf_counter()
    time.sleep(result["total_s"])  # the process lives at least as long as the total it reports
    t_slept = time.perf_counter()
    if mode == "lie_phases":
        result["first_call"]["phases"] = {"compile": 0.0015}
    if mode == "lie_total":
        result["total_s"] = 10.0
    if mode == "lie_segments":
        result["total_s"] = segments / 2
    if args.workload_path:
        result["workload"] = {"path": args.workload_path}
    if mode == "tiny_calls":
        result["calls_s"] = [5e-324] * len(result.get("calls_s", []))
    if mode == "missing_total":
        del result["total_s"]
    if mode == "missing_verify_first":
        del result["verify_first"]
    if mode == "hidden_phase":
        result["first_call"]["phases"]["warmup"] = -1.0
    if mode == "dup_phase":
        result["first_call"]["phase_names"] = ["compile", "compile"]
    if mode == "wrong_first":
        result["verify_first"] = {"ok": False, "message": "relative error 0.5 exceeds 1e-4"}
    if mode == "huge":
        result["first_call_s"] = 1e308
        result["calls_s"] = [1e308] * len(result.get("calls_s", []))
    if mode == "slow":
        time.sleep(float(os.environ.get("FAKE_WORKER_SLEEP", "3")))
        hold = os.environ.get("FAKE_WORKER_HOLD")
        deadline = time.monotonic() + 300
        while hold and os.path.exists(hold) and time.monotonic() < deadline:
            time.sleep(0.05)
    if mode in ("fork_linger", "fork_setsid"):
        _linger(mode == "fork_setsid")
    if mode == "fill_disk":
        _fill(os.environ["FAKE_WORKER_FILL"])
    if mode == "crash" or (mode == "crash_warm" and args.mode == "warm") or (mode == "crash_count" and
                                                                             args.mode == "count"):
        os.abort()
    if mode == "hang":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        pidfile = os.environ.get("FAKE_WORKER_PIDFILE")
        if pidfile:
            with open(pidfile, "a") as f:
                f.write(f"{child.pid}\n")
        time.sleep(600)
    if mode == "garbage":
        ch.write("this is not json\n")
    if mode == "flood":
        ch.write("x" * (17 << 20) + "\n")
    if mode == "exit3":
        return 3
    if mode == "wrong_answer":
        result["verify"] = {"ok": False, "message": "relative error 0.5 exceeds 1e-4", "metric": "relative_error",
                            "error": 0.5, "tolerance": 1e-4}
    if mode == "off_by":
        result["verify"] = {"ok": False, "message": "result differs from the reference", "metric": "relative_error",
                            "error": float(os.environ.get("FAKE_WORKER_ERROR", "0.25")), "tolerance": 1e-4}
    if mode == "missing":
        send(type="skip", status="warn", reason="missing_dependency: numpy")
        send(type="bye")
        return 0
    if mode == "deep":  # a result nested far deeper than any document needs (Python cannot even build it)
        ch.write(json.dumps(result)[:-1] + ', "workload": ' + "[" * 70000 + "]" * 70000 + "}\n")
        ch.flush()
    elif mode != "noresult":
        if mode in ("harness", "lie_harness", "swallow_harness"):
            t_sent = time.perf_counter()

            def stamp(t):
                return START_NS + round((t - START_PERF) * 1e9)
            result["harness"] = {"started_monotonic_ns": START_NS, "import_s": t_clock - START_PERF,
                                 "observe_s": (t_slept - t_clock) - result["total_s"], "verify_s": 0.0,
                                 "report_s": t_sent - t_slept, "sent_monotonic_ns": stamp(t_sent),
                                 "marks_monotonic_ns": {"measured_start": stamp(t_clock),
                                                        "measured_end": stamp(t_clock + result["total_s"]),
                                                        "observed": stamp(t_slept), "verified": stamp(t_slept)}}
            if mode == "lie_harness":
                result["harness"]["import_s"] = 0.0
            if mode == "swallow_harness":  # its import's time reported as verification: the sum still fits
                result["harness"]["verify_s"] = result["harness"]["import_s"]
                result["harness"]["import_s"] = 0.0
        send(**result)
    send(type="bye")
    return 0


sys.exit(main())
