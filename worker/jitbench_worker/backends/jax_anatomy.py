"""JAX's compile anatomy (--mode anatomy; docs/anatomy.md): XLA's and JAX's
own profiler events (jax.profiler with create_perfetto_trace, the Python
tracer off) around the first call, placed under jitbench's phases (the
monitoring events' spans) and nested by interval.

One mapping table per JAX release whose names changed: the newest release
<= the installed one is used. An event not in the table keeps its own name
(a single HLO pass: algsimp, copy-insertion, ...)."""

from .. import anatomy

_COMMON = {
    "PjRtCpuClient::Compile": "PjRt compile",
    "CpuCompiler::RunHloPasses": "HLO optimisation",
    "HLO passes through layout assignment": "HLO passes: through layout assignment",
    "HLO passes after layout assignment": "HLO passes: after layout assignment",
    "CpuCompiler::RunBackend": "code generation (RunBackend)",
    "CpuCompiler::CompileCpuExecutable": "CPU executable (LLVM)",
    # 0.4.35's name for the same step (under TfrtCpuClient::Compile, no RunBackend around it).
    "CpuCompiler::CompileLegacyCpuExecutable": "CPU executable (LLVM)",
    "Codegen": "LLVM codegen",
    "JitCompiler::Compile": "LLVM JIT compile",
    # XLA's CPU thunk runtime (0.4.32+): the thunks emitted, the fusions' kernels compiled on the codegen
    # pool (tf_xla-cpu-codegen) and collected, LLVM's compile tasks run on that pool while the JIT waits.
    "ThunkEmitter::EmitEntryComputation": "thunk emission (EmitEntryComputation)",
    "ThunkEmitter::ConsumeKernels": "kernel compile (ConsumeKernels)",
    "FusionCompiler::Compile": "fusion kernel compile (FusionCompiler::Compile)",
    "TaskDispatcher::dispatch": "LLVM compile task (TaskDispatcher::dispatch)",
    "lower_sharding_computation": "lowering (lower_sharding_computation)",
    "GpuCompiler::RunHloPasses": "HLO optimisation",
    "GpuCompiler::RunBackend": "code generation (RunBackend)",
    "NVPTXCompiler::CompileTargetBinary": "PTX compile",
}
# One sub-phase under both names, so that a release step across the rename
# gives a ratio, not "new" and "gone" (the item's source keeps the event's own name).
_NEW_NAMES = {"backend_compile_and_load": "XLA compile (backend_compile[_and_load])"}
# Recorded: 0.4.26 and 0.6.0 name the backend compile backend_compile and the
# CPU client TfrtCpuClient; 0.8.0 and 0.10.2 backend_compile_and_load and
# PjRtCpuClient. The releases between 0.6.0 and 0.8.0 are unrecorded: their
# table knows both names.
JAX_ANATOMY_TABLES = [
    ((0, 4, 26), {**_COMMON, **_NEW_NAMES, "backend_compile": "XLA compile (backend_compile[_and_load])",
                  "TfrtCpuClient::Compile": "PjRt compile"}),
    ((0, 8, 0), {**_COMMON, **_NEW_NAMES}),
]
# jitbench's phase -> the recorder's span that holds it (jax_.py's events);
# compile_total holds the cache write too, which is its own phase here as in
# jax_.py's phases (compile = compile_total minus cache_write).
_PHASE_SPANS = {"trace": "trace", "lower": "lower", "compile": "compile_total", "cache_load": "cache_load",
                "cache_write": "cache_write_nested"}
_JIT = "PjitFunction("


def events_from_trace(raw):
    """(start_s, end_s, name, thread) of a perfetto JSON trace's complete
    events, on the profiler's own clock, without the Python tracer's
    ("$file:line"); thread is the thread's name with its id where the name
    has none (XLA's pool threads carry theirs: "tf_xla-cpu-codegen/<id>";
    the dispatching thread is "python/<tid>"), "thread/<tid>" unnamed."""
    names = {(e.get("pid"), e.get("tid")): e["args"]["name"] for e in raw
             if e.get("ph") == "M" and e.get("name") == "thread_name" and isinstance(e.get("args"), dict)
             and "name" in e["args"]}
    out = []
    for e in raw:
        if e.get("ph") == "X" and "dur" in e and not str(e.get("name", "")).startswith("$"):
            key = (e.get("pid"), e.get("tid"))
            name = names.get(key, "thread")
            thread = name if anatomy.thread_group(name) != name else f"{name}/{key[1]}"
            out.append((e["ts"] / 1e6, (e["ts"] + e["dur"]) / 1e6, e["name"], thread))
    return out


def items(events, spans, t_first_call, version, dropped=None, t_first_call_end=None, outside=None):
    """The anatomy items of one first call from its profiler events and its
    phase spans (jitbench's clock). The profiler's clock is aligned on
    jitbench's at the first jit dispatch (the earliest PjitFunction event
    starts when the first call's clock did); the jit dispatch events
    themselves span every phase and are no sub-phase of one. The thread of
    that dispatch is the dispatching thread: its events form the tree, the
    other threads' nest in it (anatomy.nest). Events recorded without a
    thread (the older streams of tests/data/anatomy/) are all taken as the
    dispatching thread's. With the first call's end, `outside` gets what the
    events cover of the first call outside every phase (anatomy.outside_phases)."""
    jits = [e for e in events if e[2].startswith(_JIT)]
    if not jits:
        return []
    first = min(jits, key=lambda e: e[0])
    offset = t_first_call - first[0]
    main = first[3] if len(first) > 3 else None
    shifted = [(e[0] + offset, e[1] + offset, *e[2:]) for e in events if not e[2].startswith(_JIT)]
    # Tuples, as the live spans are: a recorded stream's come from JSON as lists, and minus() returns tuples.
    phase_spans = {phase: [tuple(iv) for iv in spans[key]] for phase, key in _PHASE_SPANS.items() if spans.get(key)}
    if "compile" in phase_spans and "cache_write" in phase_spans:
        phase_spans["compile"] = anatomy.minus(phase_spans["compile"], phase_spans["cache_write"])
    # A trace nested in a lowering or a compile is that step's time (jax_.py's summarize).
    outer = [iv for phase, ivs in phase_spans.items() if phase != "trace" for iv in ivs]
    if "trace" in phase_spans:
        phase_spans["trace"] = anatomy.minus(phase_spans["trace"], outer)
    if t_first_call_end is not None and outside is not None:
        outside.update(anatomy.outside_phases(shifted, phase_spans, (t_first_call, t_first_call_end)))
    _, table = anatomy.release_table(JAX_ANATOMY_TABLES, version)
    return anatomy.nest(shifted, phase_spans, table, "jax.profiler event", main, dropped, t_first_call)


class JaxAnatomy:
    """The profiler session of one anatomy process."""

    def __init__(self, jax):
        self.jax, self.dir, self.stream = jax, None, None

    def begin(self):
        import tempfile

        self.dir = tempfile.mkdtemp(prefix="jitbench-anatomy-")
        try:
            opts = self.jax.profiler.ProfileOptions()
            opts.python_tracer_level = 0  # XLA's and JAX's own events only: the Python tracer costs the most
            self.jax.profiler.start_trace(self.dir, create_perfetto_trace=True, profiler_options=opts)
        except (AttributeError, TypeError):  # a release without ProfileOptions
            self.jax.profiler.start_trace(self.dir, create_perfetto_trace=True)

    def end(self):
        self.jax.profiler.stop_trace()

    def report(self, spans, t_first_call, t_first_call_end):
        import glob
        import gzip
        import json
        import shutil

        version = self.jax.__version__
        release, _ = anatomy.release_table(JAX_ANATOMY_TABLES, version)
        out = {"mapping": f"jax {'.'.join(map(str, release))}",
               "sources": "jax.profiler trace (create_perfetto_trace, Python tracer off) around the measured calls"}
        try:  # the profiler's output goes, read or not
            found = sorted(glob.glob(f"{self.dir}/**/perfetto_trace.json.gz", recursive=True))
            if not found:
                return {**out, "items": [], "note": "jax.profiler wrote no perfetto trace"}
            with gzip.open(found[-1], "rt") as f:
                trace = json.load(f)
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
        raw = trace["traceEvents"] if isinstance(trace, dict) else trace
        self.stream = {"framework": "jax", "version": version, "t_first_call": t_first_call,
                       "t_first_call_end": t_first_call_end, "spans": spans, "events": events_from_trace(raw)}
        dropped, outside = {}, {}
        found_items = items(self.stream["events"], spans, t_first_call, version, dropped, t_first_call_end, outside)
        return {**out, "items": found_items, "dropped": dropped, **({"outside_phases": outside} if outside else {})}


def profiler_session(jax):
    """Whether a jax.profiler session is open in this process (None: unknown)."""
    try:
        from jax._src import profiler

        return profiler._profile_state.profile_session is not None
    except Exception:
        return None
