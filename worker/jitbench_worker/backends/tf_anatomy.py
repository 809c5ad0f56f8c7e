"""TensorFlow's compile anatomy (--mode anatomy; docs/anatomy.md): the
TraceMe events of TensorFlow's own profiler (tf.profiler.experimental, the
Python tracer off) around the first call, placed under the TensorFlow
adapter's phases (trace: the wrapped _create_concrete_function; xla_compile:
device_compilation_profiler's compile, from TensorFlow's log) and nested by
interval.

The profiler's events are on the wall clock: the XSpace's "Task Environment"
plane holds the session's start (profile_start_time, ns since the epoch; TF
2.21) and each line's events are offsets from it. The adapter's log-based
phases are on the wall clock too (its log stamps), mapped onto the worker's
perf_counter the same way: the difference of the two clocks read back to back
when the session begins. A release whose XSpace lacks the session's start
(2.16) is aligned on the trace span instead (see _origin).

One mapping table per TensorFlow release whose names changed: the newest
release <= the installed one is used. An event not in the table keeps its own
name (a single HLO pass: algsimp, copy-insertion, ...)."""

import time

from .. import anatomy

_COMMON = {
    "tf.function-graph_building": "graph building (tf.function-graph_building)",
    "CpuCompiler::RunHloPasses": "HLO optimisation",
    "GpuCompiler::RunHloPasses": "HLO optimisation",
    "HLO passes through layout assignment": "HLO passes: through layout assignment",
    "HLO passes after layout assignment": "HLO passes: after layout assignment",
    "CpuCompiler::RunBackend": "code generation (RunBackend)",
    "GpuCompiler::RunBackend": "code generation (RunBackend)",
    "CpuCompiler::CompileCpuExecutable": "CPU executable (LLVM)",
    "ThunkEmitter::EmitEntryComputation": "thunk emission (EmitEntryComputation)",
    "ThunkEmitter::ConsumeKernels": "kernel compile (ConsumeKernels)",
    "FusionCompiler::Compile": "fusion kernel compile (FusionCompiler::Compile)",
    "TaskDispatcher::dispatch": "LLVM compile task (TaskDispatcher::dispatch)",
    "Codegen": "LLVM codegen",
    "JitCompiler::Compile": "LLVM JIT compile",
    "NVPTXCompiler::CompileTargetBinary": "PTX compile",
}
TF_ANATOMY_TABLES = [
    ((2, 16, 0), dict(_COMMON)),
]
_BUILDING = "tf.function-graph_building"
# The call's own dispatch: each spans the whole call (trace, compile and the
# execution after it), so it is no sub-phase of one phase; left out, counted.
_DISPATCH_PREFIXES = ("TFE_Py_Execute", "EagerExecute", "EagerLocalExecute", "EagerKernelExecute",
                      "KernelAndDeviceFunc::Run", "FunctionRun", "__inference_")
# jitbench's phase -> the adapter's recorder span that holds it (tensorflow_.py).
# xla_total is the whole compile device_compilation_profiler times: the
# adapter's xla_compile is it less the persistent cache's lookup and write,
# which only a warm_cache run has (an anatomy process runs cold_cache).
_PHASE_SPANS = {"trace": "trace", "xla_compile": "xla_total", "cache_load": "cache_load"}


def _stat(space_plane, stat, name):
    md = space_plane.stat_metadata.get(stat.metadata_id)
    return md is not None and md.name == name


def events_from_xspace(space):
    """{"profile_start_ns", "events": [[start_s, end_s, name, thread]],
    "calls": [...]} of an XSpace's host planes: times in seconds since the
    session's start; thread is the line's name (a pool thread's carries its
    id); calls are the tf.function call events (their TraceMe carries
    tf_function_call), not in events."""
    start_ns = None
    for plane in space.planes:
        for s in plane.stats:
            if _stat(plane, s, "profile_start_time"):
                start_ns = s.int64_value or s.uint64_value
    out = {"profile_start_ns": start_ns, "events": [], "calls": []}
    for plane in space.planes:
        if not plane.name.startswith("/host:"):
            continue
        for line in plane.lines:
            thread = line.name if line.name.endswith(f"/{line.id}") else f"{line.name}/{line.id}"
            # Normalised to the session's start when it is known (TensorFlow saves them so). A line
            # already relative to it cannot exceed start_ns (~1.7e18 ns since the epoch), so the test
            # tells the two apart.
            base_ns = line.timestamp_ns - (start_ns if start_ns and line.timestamp_ns > start_ns else 0)
            for e in line.events:
                a = (base_ns + e.offset_ps / 1000.0) / 1e9
                name = plane.event_metadata[e.metadata_id].name
                rec = [round(a, 9), round(a + e.duration_ps / 1e12, 9), name, thread]
                call = any(_stat(plane, s, "tf_function_call") for s in e.stats)
                out["calls" if call else "events"].append(rec)
    return out


def _dispatch(name):
    return name.startswith(_DISPATCH_PREFIXES)


def _origin(stream, first_call):
    """The worker's perf_counter time of the profiler's zero."""
    if stream.get("profile_start_ns") is not None:
        return (stream["profile_start_ns"] - stream["wall_minus_perf_ns"]) / 1e9
    # No session start in the XSpace (2.16): the first graph building ends when
    # the first trace span does (it ends after _create_concrete_function
    # returns: 0.1 ms later on 2.21's wall clock); without one, the call's
    # event starts when the first call's clock did (0.4 ms later on 2.21).
    building = [e for e in stream["events"] if e[2] == _BUILDING and e[3] == first_call[3]]
    trace = sorted(stream["spans"].get("trace") or [])
    if building and trace:
        return trace[0][1] - min(building)[1]
    return stream["t_first_call"] - first_call[0]


def items(stream, dropped=None, outside=None):
    """The anatomy items of one first call from a stream (what
    TfAnatomy.report keeps: the profiler's events, the session's start, the
    two clocks' difference and the adapter's phase spans). The dispatching
    thread is the first tf.function call's: its events form the tree, the
    other threads' (XLA's codegen pool) nest in it (anatomy.nest). With the
    first call's end in the stream, `outside` gets what the events cover of
    the first call outside every phase (anatomy.outside_phases)."""
    if not stream["calls"]:
        return []
    first = min(stream["calls"], key=lambda e: e[0])
    main = first[3]
    origin = _origin(stream, first)
    shifted = []
    for a, b, name, thread in stream["events"]:
        if b <= a:
            anatomy._drop(dropped, "no duration", a, b)
        elif _dispatch(name):
            anatomy._drop(dropped, "the call's dispatch (spans every phase)", a, b)
        else:
            shifted.append((origin + a, origin + b, name, thread))
    spans = stream["spans"]
    phase_spans = {phase: [tuple(iv) for iv in spans[key]] for phase, key in _PHASE_SPANS.items() if spans.get(key)}
    if stream.get("t_first_call_end") is not None and outside is not None:
        window = (stream["t_first_call"], stream["t_first_call_end"])
        outside.update(anatomy.outside_phases(shifted, phase_spans, window))
    _, table = anatomy.release_table(TF_ANATOMY_TABLES, stream["version"])
    return anatomy.nest(shifted, phase_spans, table, "tf.profiler event", main, dropped, stream["t_first_call"])


class TfAnatomy:
    """The profiler session of one anatomy process. Its log directory is a
    jitbench-anatomy-* directory of the process's TMPDIR (docs/anatomy.md)."""

    def __init__(self, tf):
        self.tf, self.dir, self.stream, self.wall_minus_perf_ns = tf, None, None, None

    def begin(self):
        import tempfile

        self.dir = tempfile.mkdtemp(prefix="jitbench-anatomy-")
        opts = self.tf.profiler.experimental.ProfilerOptions(host_tracer_level=2, python_tracer_level=0,
                                                             device_tracer_level=0)
        self.wall_minus_perf_ns = time.time_ns() - time.perf_counter_ns()
        self.tf.profiler.experimental.start(self.dir, options=opts)

    def end(self):
        self.tf.profiler.experimental.stop()

    def report(self, spans, t_first_call, t_first_call_end):
        import glob
        import shutil

        from tensorflow.tsl.profiler.protobuf import xplane_pb2

        version = self.tf.__version__
        release, _ = anatomy.release_table(TF_ANATOMY_TABLES, version)
        out = {"mapping": f"tensorflow {'.'.join(map(str, release))}",
               "sources": "tf.profiler.experimental trace (host tracer level 2, Python tracer off) around the "
                          "measured calls, its XSpace's host events"}
        try:  # the profiler's output goes, read or not
            found = sorted(glob.glob(f"{self.dir}/**/*.xplane.pb", recursive=True))
            if not found:
                return {**out, "items": [], "note": "tf.profiler wrote no xplane.pb"}
            space = xplane_pb2.XSpace()
            with open(found[-1], "rb") as f:
                space.ParseFromString(f.read())
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
        keep = ("trace", "xla_total", "cache_load")
        self.stream = {"framework": "tensorflow", "version": version, "t_first_call": t_first_call,
                       "t_first_call_end": t_first_call_end, "wall_minus_perf_ns": self.wall_minus_perf_ns,
                       "spans": {k: [list(iv) for iv in spans.get(k, [])] for k in keep},
                       **events_from_xspace(space)}
        dropped, outside = {}, {}
        found_items = items(self.stream, dropped, outside)
        if not found_items:
            return {**out, "items": [], "note": "the trace holds no tf.function call event"}
        return {**out, "items": found_items, "dropped": dropped, **({"outside_phases": outside} if outside else {})}


def profiler_session():
    """Whether a tf.profiler session is open in this process (None: unknown)."""
    try:
        from tensorflow.python.profiler import profiler_v2

        return profiler_v2._profiler is not None
    except Exception:
        return None
