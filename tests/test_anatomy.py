"""Compile anatomy (run --anatomy; docs/anatomy.md).

Replays of event streams recorded from the installed frameworks
(tests/data/anatomy/, written by a worker run with JITBENCH_ANATOMY_STREAM=FILE)
give the expected tree; the C++ side catches a worker whose sub-phases exceed
their parent; real JAX and numba cases get a non-empty anatomy whose largest
item is compile-side; the measured cold processes of an --anatomy run say they
ran without the profiler."""

import importlib.util
import json
import pathlib
import sys

import pytest

from conftest import ROOT, validate

sys.path.insert(0, str(ROOT / "worker"))

from jitbench_worker import anatomy  # noqa: E402
from jitbench_worker.backends import jax_anatomy, numba_, tensorflow_, tf_anatomy, torch_  # noqa: E402

pytestmark = pytest.mark.quick

DATA = ROOT / "tests" / "data" / "anatomy"


def _stream(name):
    return json.loads((DATA / name).read_text())


def _tree(items):
    return {tuple(i["path"]): i["s"] for i in items}


def _children_within_parents(tree, first_call=None):
    for path, s in tree.items():
        if len(path) > 1:
            assert path[:-1] in tree, path
    for parent, s in tree.items():
        kids = sum(v for p, v in tree.items() if len(p) == len(parent) + 1 and p[:-1] == parent)
        assert kids <= s + 1e-9, (parent, kids, s)


def _jax_items(stream):
    return jax_anatomy.items(stream["events"], stream["spans"], stream["t_first_call"], stream["version"])


@pytest.mark.parametrize("name", ["jax-0.10.2-matmul_128_f32.json", "jax-0.10.2-mc_pi_100000_f64.json"])
def test_a_recorded_jax_stream_gives_the_expected_tree(name):
    tree = _tree(_jax_items(_stream(name)))
    _children_within_parents(tree)
    xla = ("compile", "XLA compile (backend_compile[_and_load])")
    pjrt = xla + ("PjRt compile",)
    # The phases are jitbench's; XLA's events nest under the compile, named by the 0.8.0+ table.
    assert {p[0] for p in tree if len(p) == 1} == {"trace", "lower", "compile"}
    assert xla in tree and pjrt in tree
    assert pjrt + ("HLO passes: through layout assignment",) in tree
    assert pjrt + ("code generation (RunBackend)",) in tree
    # A single HLO pass keeps its own name, without the module it ran for.
    assert any(p[-1] == "layout-assignment" for p in tree)
    assert not any("(jit_" in part for p in tree for part in p)
    # The largest sub-phase of the compile is XLA's compile.
    top = max((p for p in tree if len(p) == 2 and p[0] == "compile"), key=tree.get)
    assert top == xla
    # lower_sharding_computation starts before the lowering's span and holds all of it:
    # clipped to the phase, the clip recorded, never left out (the lowering is not unattributed).
    lowering = ("lower", "lowering (lower_sharding_computation)")
    assert tree[lowering] == pytest.approx(tree[("lower",)])
    clipped = [i for i in _jax_items(_stream(name)) if tuple(i["path"]) == lowering][0]["clipped_s"]
    assert clipped > anatomy._TOLERANCE_S


@pytest.mark.parametrize("release", ["0.4.26", "0.6.0", "0.8.0", "0.10.2"])
def test_recorded_jax_items_carry_intervals_that_nest(release):
    """Every item says where it ran; each sub-phase lies in an interval of its
    parent and siblings never overlap (what jitbench checks by interval)."""
    by = {tuple(i["path"]): i["intervals"] for i in _jax_items(_stream(f"jax-{release}-matmul_128_f32.json"))}
    siblings = {}
    for path, ivs in by.items():
        if len(path) < 2:
            continue
        for a, b in ivs:
            siblings.setdefault(path[:-1], []).append((a, b))
            assert any(pa - 1e-6 <= a and b <= pb + 1e-6 for pa, pb in by[path[:-1]]), path
    for xs in siblings.values():
        xs.sort()
        assert all(xs[i][0] >= xs[i - 1][1] - 1e-6 for i in range(1, len(xs)))


def _rows(items):
    """An anatomy as its .expected.json holds it: [path, s] per item, and
    another thread's [path, s, thread, thread_s], sorted."""
    rows = []
    for i in items:
        row = [[*i["path"]], round(i["s"], 9)]
        if "thread" in i:
            row += [i["thread"], round(i["thread_s"], 9)]
        rows.append(row)
    return sorted(rows)


def test_a_jax_stream_replays_to_the_tree_recorded_with_it():
    """The whole tree of one stream, as the mapping made it when the stream was
    recorded: a renamed event or a nesting change shows up here. This stream
    was taken before the threads were kept: it replays as one thread's."""
    expected = json.loads((DATA / "jax-0.10.2-matmul_128_f32.expected.json").read_text())
    assert _rows(_jax_items(_stream("jax-0.10.2-matmul_128_f32.json"))) == expected


@pytest.mark.parametrize("release", ["0.4.31", "0.7.2", "0.8.0", "0.10.2"])
def test_a_jax_stream_with_other_threads_replays_to_its_expected_tree(release):
    """mc_pi 1e5 f64 in each release's environment (one anatomy process,
    JITBENCH_ANATOMY_STREAM), every thread's events: the tree as recorded,
    other threads' items marked with their thread group and thread time."""
    name = f"jax-{release}-mc_pi_100000_f64"
    expected = json.loads((DATA / f"{name}.expected.json").read_text())
    assert _rows(_jax_items(_stream(f"{name}.json"))) == expected
    assert any(len(e) > 3 and e[3] != min((e for e in _stream(f"{name}.json")["events"]
                                          if e[2].startswith("PjitFunction(")), key=lambda e: e[0])[3]
               for e in _stream(f"{name}.json")["events"]), "the stream holds another thread's events"


def test_xla_s_codegen_pool_nests_under_what_waited_for_it():
    """JAX 0.8.0: the LLVM JIT waits for its compile tasks on tf_xla-cpu-codegen,
    the thunk emission and ConsumeKernels for the fusions' kernels there;
    0.10.2 runs the whole XLA compile on tf_PjRtCompilerThreadPool and the
    codegen pool's items nest under its items. Every other-thread item's wall
    time lies within its thread time, and children's walls within their parent's."""
    cpu = ("compile", "XLA compile (backend_compile[_and_load])", "PjRt compile", "code generation (RunBackend)",
           "CPU executable (LLVM)")
    task = cpu + ("LLVM codegen", "LLVM JIT compile", "LLVM compile task (TaskDispatcher::dispatch)")
    fusion = "fusion kernel compile (FusionCompiler::Compile)"
    for release, compile_thread in (("0.8.0", None), ("0.10.2", "tf_PjRtCompilerThreadPool")):
        items = {tuple(i["path"]): i for i in _jax_items(_stream(f"jax-{release}-mc_pi_100000_f64.json"))}
        _children_within_parents({p: i["s"] for p, i in items.items()})
        assert items[task]["thread"] == "tf_xla-cpu-codegen"
        assert 0 < items[task]["s"] <= items[task[:-1]]["s"] <= items[task]["thread_s"]  # two pool threads at once
        for waiting in ("thunk emission (EmitEntryComputation)", "kernel compile (ConsumeKernels)"):
            assert items[cpu + (waiting, fusion)]["thread"] == "tf_xla-cpu-codegen"
        assert items[cpu].get("thread") == compile_thread
        assert "thread" not in items[("compile", "XLA compile (backend_compile[_and_load])")]
        for i in items.values():
            assert "thread" not in i or i["s"] <= i["thread_s"] + 1e-9, i["path"]


@pytest.mark.parametrize("release,event", [
    ("0.4.26", "backend_compile"), ("0.6.0", "backend_compile"), ("0.8.0", "backend_compile_and_load")])
def test_recorded_streams_of_older_releases_map_their_names(release, event):
    """JAX 0.4.26 and 0.6.0 named the backend compile backend_compile and the
    CPU client TfrtCpuClient, 0.8.0 backend_compile_and_load and PjRtCpuClient:
    each release's table maps them to the same sub-phases, and the item still
    names the event it came from."""
    items = _jax_items(_stream(f"jax-{release}-matmul_128_f32.json"))
    tree = _tree(items)
    _children_within_parents(tree)
    backend = ("compile", "XLA compile (backend_compile[_and_load])")
    assert backend + ("PjRt compile",) in tree
    assert next(i for i in items if tuple(i["path"]) == backend)["source"] == f"jax.profiler event {event}"


def test_the_mapping_table_is_chosen_by_release():
    older = anatomy.release_table(jax_anatomy.JAX_ANATOMY_TABLES, "0.6.0")[1]
    newer = anatomy.release_table(jax_anatomy.JAX_ANATOMY_TABLES, "0.10.2")[1]
    assert "backend_compile" in older and "backend_compile" not in newer
    assert "backend_compile_and_load" in newer
    # A release older than every table gets the oldest.
    assert anatomy.release_table(jax_anatomy.JAX_ANATOMY_TABLES, "0.4.1")[0] == (0, 4, 26)


def test_a_recorded_numba_stream_gives_the_expected_tree():
    s = _stream("numba-0.68.1-mc_pi_100000_f64.json")
    tree = _tree(numba_.numba_anatomy_items(s["spans"]["compile"], s["passes"], s["version"]))
    _children_within_parents(tree)
    assert {p[0] for p in tree if len(p) == 1} == {"compile"}
    assert ("compile", "typing (nopython_type_inference)") in tree
    assert ("compile", "lowering + LLVM (native_lowering)") in tree
    top = max((p for p in tree if len(p) > 1), key=tree.get)
    assert top in {("compile", "typing (nopython_type_inference)"), ("compile", "lowering + LLVM (native_lowering)")}


# -- torch.compile: its chromium event log ------------------------------------
# dynamo [0, 10] > backend_compile [2, 9] > create_aot_dispatcher_function [3, 8]
# > fw_compiler_base [4, 7]; inductor's lowering and C++ compile inside that; a
# cache key inside AOTAutograd after it; dynamo's bytecode tracing before the
# backend; one region that holds the backend compile (so no single phase).
_TORCH_EVENTS = [(0.0, 10.0, "dynamo"), (0.5, 1.5, "bytecode_tracing"), (0.2, 9.5, "compile_attempt_0"),
                 (2.0, 9.0, "backend_compile"), (3.0, 8.0, "create_aot_dispatcher_function"),
                 (4.0, 7.0, "compile_fx.<locals>.fw_compiler_base"), (4.5, 5.5, "GraphLowering.run"),
                 (5.6, 6.5, "compile_file"), (7.2, 7.4, "inductor_codecache_torch_key"),
                 (8.2, 8.6, "some_new_region")]


def test_torch_phases_are_their_roots_less_the_roots_nested_in_them():
    spans = torch_.torch_phase_spans(_TORCH_EVENTS)
    assert spans == {"dynamo": [(0.0, 2.0), (9.0, 10.0)], "backend_other": [(2.0, 3.0), (8.0, 9.0)],
                     "aot_autograd": [(3.0, 4.0), (7.0, 7.2), (7.4, 8.0)], "inductor": [(4.0, 7.0)],
                     "cache_key": [(7.2, 7.4)]}


def test_a_phase_root_inside_another_phases_inside_its_own_is_its_own_phases():
    """dynamo > backend_compile > fw_compiler > triton_key > bw_compiler: the
    bw compiler's second counts for the inductor (its nearest root), as the
    hook counts it, and the phases tile the whole dynamo region."""
    events = [(0.0, 10.0, "dynamo"), (1.0, 9.0, "backend_compile"),
              (2.0, 8.0, "compile_fx.<locals>.fw_compiler_base"), (3.0, 7.0, "CacheBase.get_system.triton_key"),
              (4.0, 5.0, "compile_fx.<locals>.bw_compiler_base"), (4.2, 4.8, "GraphLowering.run")]
    spans = torch_.torch_phase_spans(events)
    assert spans["inductor"] == [(2.0, 3.0), (4.0, 5.0), (7.0, 8.0)]
    assert spans["cache_key"] == [(3.0, 4.0), (5.0, 7.0)]
    assert sum(b - a for ivs in spans.values() for a, b in ivs) == 10.0
    tree = _tree(torch_.torch_anatomy_items(events, "2.15.0", 0.0))
    assert tree[("inductor", "lowering (GraphLowering.run)")] == pytest.approx(0.6)


def test_a_torch_stream_nests_its_regions_under_the_phases_by_interval():
    dropped = {}
    items = torch_.torch_anatomy_items(_TORCH_EVENTS, "2.15.0", 0.0, dropped)
    tree = _tree(items)
    _children_within_parents(tree)
    assert tree[("dynamo",)] == 3.0 and tree[("inductor",)] == 3.0 and tree[("aot_autograd",)] == pytest.approx(1.8)
    assert tree[("inductor", "lowering (GraphLowering.run)")] == 1.0
    assert tree[("inductor", "C++ compile (compile_file)")] == pytest.approx(0.9)
    assert tree[("dynamo", "bytecode tracing (bytecode_tracing)")] == 1.0
    assert tree[("backend_other", "some_new_region")] == pytest.approx(0.4)  # not in the table: its own name
    # compile_attempt_0 holds the backend compile: in no single phase, left out and counted.
    assert not any("compile attempt" in p[-1] for p in tree)
    assert dropped["not inside one phase"]["events"] == 1
    # Intervals, relative to the first call's start, for jitbench's check.
    by = {tuple(i["path"]): i["intervals"] for i in items}
    assert by[("inductor", "C++ compile (compile_file)")] == [[5.6, 6.5]]


def test_a_recorded_torch_stream_gives_the_expected_tree():
    """torch 2.15.0 (CPU wheel's CUDA build, no GPU), matmul 64 f32: the
    phases tile dynamo's frame compile; inductor's regions nest down to the
    lowering, scheduling and code generation; the two regions that hold the
    backend compile (entire_frame_compile, compile_attempt_0) are left out."""
    s = _stream("torch-2.15.0-matmul_64_f32.json")
    dropped = {}
    items = torch_.torch_anatomy_items([tuple(e) for e in s["events"]], s["version"], s["t_first_call"], dropped)
    tree = _tree(items)
    _children_within_parents(tree)
    assert {p[0] for p in tree} == {"dynamo", "backend_other", "aot_autograd", "inductor", "cache_key"}
    dynamo = next(b - a for a, b, n in s["events"] if n == "dynamo")
    assert sum(v for p, v in tree.items() if len(p) == 1) == pytest.approx(dynamo, abs=1e-6)
    fx = ("inductor", "inductor compile (inductor_compile)", "FX codegen and compile (fx_codegen_and_compile)")
    assert fx + ("lowering (GraphLowering.run)",) in tree
    codegen = fx + ("GraphLowering.compile_to_fn", "code_gen", "code generation (GraphLowering.codegen)")
    assert codegen + ("scheduling (Scheduler.__init__)",) in tree
    assert ("dynamo", "bytecode tracing (bytecode_tracing)") in tree
    assert dropped == {"not inside one phase": {"events": 2, "s": pytest.approx(1.086920 + 1.369610, abs=1e-5)}}
    assert not any(p[-1] in ("entire_frame_compile", "compile_attempt_0") for p in tree)


def test_the_torch_sessions_report_keeps_the_first_calls_regions_only():
    class FakeTorch:
        __version__ = "2.15.0"

    session = torch_.TorchAnatomy(FakeTorch())
    session.begin()
    torch_._ANATOMY["events"].extend([(100 + a, 100 + b, n) for a, b, n in _TORCH_EVENTS])
    torch_._ANATOMY["events"].append((111.0, 111.5, "GraphLowering.run"))  # a recompile in the second call
    got = session.report({}, 100.0, 110.5)
    assert torch_._ANATOMY["events"] is None  # the hook stops keeping regions
    tree = _tree(got["items"])
    assert tree[("inductor", "lowering (GraphLowering.run)")] == pytest.approx(1.0)
    assert got["mapping"] == "torch 2.15.0" and len(session.stream["events"]) == len(_TORCH_EVENTS)


@pytest.mark.parametrize("name", ["tensorflow-2.21.0-matmul_128_f32.json", "tensorflow-2.21.0-mc_pi_100000_f64.json"])
def test_a_recorded_tensorflow_stream_gives_the_expected_tree(name):
    dropped = {}
    got = tf_anatomy.items(_stream(name), dropped)
    tree = _tree(got)
    _children_within_parents(tree)
    assert {p[0] for p in tree if len(p) == 1} == {"trace", "xla_compile"}
    # The graph building holds the whole trace span (it starts before _create_concrete_function):
    # clipped to it, never left out.
    building = ("trace", "graph building (tf.function-graph_building)")
    assert tree[building] == pytest.approx(tree[("trace",)])
    # XLA's events nest under the compile, named by the table; a single HLO pass keeps its own name.
    backend = ("xla_compile", "code generation (RunBackend)")
    assert backend + ("CPU executable (LLVM)", "LLVM codegen", "LLVM JIT compile") in tree
    assert ("xla_compile", "HLO passes: through layout assignment") in tree
    assert any(p[-1] == "layout-assignment" for p in tree)
    top = max((p for p in tree if len(p) == 2 and p[0] == "xla_compile"), key=tree.get)
    assert top == backend
    # The call's dispatch events span every phase (left out, counted, never clipped into one).
    assert not any(p[-1].startswith(("EagerKernelExecute", "__inference_", "TFE_Py")) for p in tree)
    assert dropped["the call's dispatch (spans every phase)"]["events"] > 0
    # XLA's codegen pool is in the tree, under the JIT compile that waited for it, marked.
    task = backend + ("CPU executable (LLVM)", "LLVM codegen", "LLVM JIT compile",
                      "LLVM compile task (TaskDispatcher::dispatch)")
    assert {i.get("thread") for i in got if tuple(i["path"]) == task} == {"tf_xla-cpu-codegen"}
    assert "another thread" not in dropped


@pytest.mark.parametrize("name", ["tensorflow-2.21.0-matmul_128_f32", "tensorflow-2.21.0-mc_pi_100000_f64"])
def test_a_tensorflow_stream_replays_to_the_tree_recorded_with_it(name):
    """mc_pi's: XLA's codegen pool (tf_xla-cpu-codegen) under the JIT compile,
    the thunk emission and ConsumeKernels that waited for it."""
    expected = json.loads((DATA / f"{name}.expected.json").read_text())
    assert _rows(tf_anatomy.items(_stream(f"{name}.json"))) == expected


def test_tensorflow_items_carry_intervals_that_nest():
    stream = _stream("tensorflow-2.21.0-mc_pi_100000_f64.json")
    by = {tuple(i["path"]): i["intervals"] for i in tf_anatomy.items(stream)}
    for path, ivs in by.items():
        for a, b in ivs if len(path) > 1 else ():
            assert any(pa - 1e-6 <= a and b <= pb + 1e-6 for pa, pb in by[path[:-1]]), path


def test_a_tensorflow_2_16_stream_has_the_graph_building_only():
    """TF 2.16.2's XSpace has no session start (aligned on the trace span
    instead) and its XLA emits no host TraceMe event: the compile has no
    sub-phase, the trace its graph building."""
    s = _stream("tensorflow-2.16.2-matmul_128_f32.json")
    assert s["profile_start_ns"] is None
    tree = _tree(tf_anatomy.items(s))
    _children_within_parents(tree)
    assert {p for p in tree if len(p) <= 2} == {("trace",), ("xla_compile",),
                                                ("trace", "graph building (tf.function-graph_building)")}
    assert tree[("trace", "graph building (tf.function-graph_building)")] == pytest.approx(tree[("trace",)])
    assert anatomy.release_table(tf_anatomy.TF_ANATOMY_TABLES, "2.16.2")[0] == (2, 16, 0)
    # The building's end is put on the trace's end by construction; what can fail is the rest of the clock: so
    # aligned, the first tf.function call event starts within 1 ms of the worker's own first-call clock, and the
    # log-stamped XLA compile lies inside that call.
    first_call = min(s["calls"])
    origin = tf_anatomy._origin(s, first_call)
    assert abs(origin + first_call[0] - s["t_first_call"]) < 1e-3
    (xla,) = s["spans"]["xla_total"]
    assert origin + first_call[0] < xla[0] < xla[1] < origin + first_call[1]


def test_tensorflow_log_stamps_of_both_formats_are_read():
    """2.21 logs through absl (seconds since the epoch), 2.16 in local time:
    the compile's line is parsed in both (2.16's xla_compile was missing
    before). A parse test: the expected local time is computed as the code
    computes it, so a wrong time zone would not show here."""
    msg = "Compiled f 1 times, compile time: 5 us"
    absl = f"I0000 00:00:1795722008.348023    8745 device_compilation_profiler.cc:113] {msg}"
    assert tensorflow_._log_stamp(absl) == (1795722008.348023, msg)
    local = "2026-11-26 19:40:53.647799: I tensorflow/compiler/jit/device_compilation_profiler.cc:113] Compiled f"
    from datetime import datetime

    at, msg = tensorflow_._log_stamp(local)
    assert at == pytest.approx(datetime(2026, 11, 26, 19, 40, 53, 647799).timestamp()) and msg == "Compiled f"
    assert tensorflow_._log_stamp("To enable the following instructions: AVX2 FMA") is None


def test_an_event_that_sticks_out_of_its_phase_is_left_out():
    spans = {"compile": [(1.0, 2.0)]}
    items = anatomy.nest([(1.1, 1.5, "a"), (1.2, 1.3, "b"), (1.4, 1.6, "c"), (1.9, 2.5, "d")], spans, {}, "ev")
    tree = _tree(items)
    # c overlaps its would-be parent a's end (another thread): left out; d leaves the phase: left out.
    assert tree == pytest.approx({("compile",): 1.0, ("compile", "a"): 0.4, ("compile", "a", "b"): 0.1})


def test_an_event_just_beside_its_phase_is_left_out_not_given_a_negative_time():
    # JAX 0.4.31 / 0.7.2 retrace_raw: ParseArguments ran within the 0.2 ms tolerance
    # after the trace's interval ended; clipped to it, it came out at -2 ms and the
    # anatomy process failed protocol_violation.
    spans = {"trace": [(1.0, 2.0)], "compile": [(3.0, 4.0)]}
    dropped = {}
    items = anatomy.nest([(2.00005, 2.00015, "after"), (2.9999, 2.99995, "before"), (1.2, 1.3, "in")],
                         spans, {}, "ev", dropped=dropped, origin=0.5)
    assert all(i["s"] >= 0 for i in items)
    assert all(b >= a for i in items for a, b in i.get("intervals", []))
    assert _tree(items) == pytest.approx({("trace",): 1.0, ("trace", "in"): 0.1, ("compile",): 1.0})
    assert dropped["beside its phase, not inside it"]["events"] == 2


def test_an_event_that_holds_its_whole_phase_is_clipped_to_it_and_says_so():
    spans = {"trace": [(0.0, 0.5)], "lower": [(1.0, 2.0)]}
    dropped = {}
    tree = {tuple(i["path"]): i for i in anatomy.nest([(0.6, 2.0, "l"), (0.2, 1.5, "both")], spans, {}, "ev",
                                                      dropped=dropped)}
    assert tree[("lower", "l")]["s"] == pytest.approx(1.0)
    assert tree[("lower", "l")]["clipped_s"] == pytest.approx(0.4)
    # One over two phases is no phase's: left out, and counted.
    assert not any("both" in p for p in tree)
    assert dropped == {"not inside one phase": {"events": 1, "s": pytest.approx(1.3)}}


def test_another_threads_events_nest_under_the_item_that_waited_for_them():
    """A pool's event inside a dispatching-thread item's interval nests under
    it, marked with its thread group; its wall time is what that item's
    thread spent in none of its own children while the pool ran, its thread
    time summed over the pool's threads; a pool's own nested event under its
    own; two pool threads at once split the wait between their stages."""
    spans = {"compile": [(1.0, 2.0)]}
    events = [(1.0, 1.8, "compile_it", "main"), (1.1, 1.5, "pass", "main"),
              (1.2, 1.7, "codegen", "pool/1"), (1.3, 1.4, "llvm", "pool/1"), (1.55, 1.75, "codegen", "pool/2"),
              (1.6, 1.65, "opt", "pool/3")]
    dropped = {}
    items = anatomy.nest(events, spans, {}, "ev", main_thread="main", dropped=dropped)
    by = {tuple(i["path"]): i for i in items}
    codegen = ("compile", "compile_it", "codegen")
    # compile_it's own time outside pass: 1.0-1.1 and 1.5-1.8. pool/1's codegen (1.2-1.7) is cut where pass
    # ends: 1.5-1.7 here, and pool/2's (1.55-1.75); opt, another stage of the pool, 1.6-1.65: the wait
    # 1.5-1.75, shared at 1.6-1.65.
    assert by[codegen]["thread"] == "pool" and by[codegen]["thread_s"] == pytest.approx(0.4)
    assert by[codegen]["s"] == pytest.approx(0.25 - 0.025)
    assert by[("compile", "compile_it", "opt")]["s"] == pytest.approx(0.025)
    # While compile_it was in pass, pass waited for the rest of pool/1's codegen, llvm nested in it.
    in_pass = ("compile", "compile_it", "pass", "codegen")
    assert by[in_pass]["s"] == pytest.approx(0.3) and by[in_pass]["thread_s"] == pytest.approx(0.3)
    assert by[in_pass + ("llvm",)]["s"] == pytest.approx(0.1) and by[in_pass + ("llvm",)]["thread"] == "pool"
    assert by[("compile", "compile_it", "pass")]["s"] == pytest.approx(0.4) and "thread" not in by[
        ("compile", "compile_it", "pass")]
    assert not dropped
    _children_within_parents({p: i["s"] for p, i in by.items()})
    # Intervals: the union of the pool item's events, for jitbench's checks.
    assert "intervals" not in by[codegen]
    with_origin = {tuple(i["path"]): i for i in anatomy.nest(events, spans, {}, "ev", main_thread="main", origin=1.0)}
    assert with_origin[codegen]["intervals"] == [[pytest.approx(0.5), pytest.approx(0.75)]]
    # The thread comes from the trace: the first jit dispatch's is the dispatching one.
    raw = [{"ph": "M", "name": "thread_name", "pid": 1, "tid": 7, "args": {"name": "python"}},
           {"ph": "M", "name": "thread_name", "pid": 1, "tid": 9, "args": {"name": "tf_xla-cpu-codegen/123"}},
           {"ph": "X", "name": "PjitFunction(f)", "ts": 0, "dur": 100, "pid": 1, "tid": 7},
           {"ph": "X", "name": "backend_compile_and_load", "ts": 10, "dur": 50, "pid": 1, "tid": 7},
           {"ph": "X", "name": "Codegen", "ts": 20, "dur": 20, "pid": 1, "tid": 9},
           {"ph": "X", "name": "x", "ts": 20, "dur": 20, "pid": 1, "tid": 11}]
    events = jax_anatomy.events_from_trace(raw)
    assert {e[3] for e in events} == {"python/7", "tf_xla-cpu-codegen/123", "thread/11"}
    assert anatomy.thread_group("tf_xla-cpu-codegen/-4241032626514534062") == "tf_xla-cpu-codegen"
    tree = {tuple(i["path"]): i for i in jax_anatomy.items(events, {"compile_total": [(0.0, 1e-4)]}, 0.0, "0.10.2")}
    codegen = ("compile", "XLA compile (backend_compile[_and_load])", "LLVM codegen")
    assert tree[codegen]["thread"] == "tf_xla-cpu-codegen" and tree[codegen]["s"] == pytest.approx(2e-5)


def test_a_pool_event_two_items_waited_for_is_cut_between_them():
    """XLA's fusion kernels: compiled on the pool from the thunk emission into
    ConsumeKernels. The event lies in neither item whole: each gets the part
    that ran while it waited, and the event's thread time is counted once."""
    spans = {"compile": [(0.0, 10.0)]}
    events = [(1.0, 9.0, "cpu", "main"), (2.0, 5.0, "emit", "main"), (5.0, 8.0, "consume", "main"),
              (4.0, 7.0, "kernel", "pool/1"), (4.5, 5.5, "pass", "pool/1")]
    by = {tuple(i["path"]): i for i in anatomy.nest(events, spans, {}, "ev", main_thread="main")}
    emit, consume = ("compile", "cpu", "emit"), ("compile", "cpu", "consume")
    assert by[emit + ("kernel",)]["s"] == pytest.approx(1.0) and by[consume + ("kernel",)]["s"] == pytest.approx(2.0)
    assert by[emit + ("kernel", "pass")]["s"] == pytest.approx(0.5)
    assert by[consume + ("kernel", "pass")]["s"] == pytest.approx(0.5)
    assert sum(i.get("thread_s", 0) for p, i in by.items() if p[-1] == "kernel") == pytest.approx(3.0)
    assert not any(p == ("compile", "cpu", "kernel") for p in by)


def test_a_pool_that_another_thread_waits_for_nests_under_that_threads_items():
    """JAX 0.10.2: the dispatching thread waits in backend_compile_and_load,
    the compile runs on tf_PjRtCompilerThreadPool, its JIT on the codegen pool."""
    spans = {"compile": [(0.0, 10.0)]}
    events = [(0.5, 9.5, "backend", "main"), (1.0, 9.0, "pjrt", "tf_PjRtCompilerThreadPool/5"),
              (2.0, 8.0, "jit", "tf_PjRtCompilerThreadPool/5"), (2.5, 7.5, "task", "tf_xla-cpu-codegen/8")]
    by = {tuple(i["path"]): i for i in anatomy.nest(events, spans, {}, "ev", main_thread="main")}
    task = ("compile", "backend", "pjrt", "jit", "task")
    assert by[task]["thread"] == "tf_xla-cpu-codegen" and by[task]["s"] == pytest.approx(5.0)
    assert by[task[:3]]["thread"] == "tf_PjRtCompilerThreadPool" and by[task[:3]]["s"] == pytest.approx(8.0)


def test_one_label_on_two_threads_under_one_parent_is_kept_apart():
    spans = {"compile": [(0.0, 10.0)]}
    events = [(1.0, 2.0, "Codegen", "main"), (3.0, 4.0, "Codegen", "pool/1")]
    tree = _tree(anatomy.nest(events, spans, {}, "ev", main_thread="main"))
    assert tree == pytest.approx({("compile",): 10.0, ("compile", "Codegen"): 1.0, ("compile", "Codegen [pool]"): 1.0})


def test_what_lies_outside_every_phase_is_measured_not_dropped_silently():
    """The first call [0, 10]: phases 1-4 and 5-9; the events cover 0-1 (two
    threads at once) and 9.5-10 outside them, and 4-5 only in part."""
    spans = {"trace": [(1.0, 4.0)], "compile": [(5.0, 9.0)]}
    events = [(0.0, 1.0, "dispatch", "main"), (0.5, 1.0, "execute", "pool/1"), (4.0, 4.5, "args", "main"),
              (9.5, 12.0, "execute", "main"), (2.0, 3.0, "inside", "main")]
    out = anatomy.outside_phases(events, {k: anatomy.merged(v) for k, v in spans.items()}, (0.0, 10.0))
    assert out == {"events": 4, "wall_s": pytest.approx(2.0), "thread_s": pytest.approx(2.5),
                   "first_call_s": pytest.approx(3.0)}
    # A stream without the first call's end (recorded before it was kept) reports none.
    outside = {}
    jax_anatomy.items([(0.0, 1.0, "PjitFunction(f)")], {}, 0.0, "0.10.2", None, None, outside)
    assert outside == {}


def test_the_cache_write_is_its_own_phase_not_the_compiles():
    events = [(0.0, 1.0, "PjitFunction(f)"), (0.1, 0.5, "backend_compile_and_load"), (0.6, 0.9, "serialize")]
    spans = {"compile_total": [(0.0, 1.0)], "cache_write_nested": [(0.55, 0.95)]}
    tree = _tree(jax_anatomy.items(events, spans, 0.0, "0.10.2"))
    assert tree[("compile",)] == pytest.approx(0.6)
    assert tree[("cache_write",)] == pytest.approx(0.4)
    assert tree[("cache_write", "serialize")] == pytest.approx(0.3)


def test_a_trace_nested_in_a_lowering_is_the_lowering_s():
    assert anatomy.minus([(0, 10)], [(2, 3), (5, 6)]) == [(0, 2), (3, 5), (6, 10)]
    assert anatomy.minus([(0, 1)], [(0, 1)]) == []


# -- end to end -------------------------------------------------------------
def _anatomy_run(jitbench, *extra, env=None):
    return jitbench("run", "--cases", "matmul_8_f32", "--backends", "numpy,numba", "--cold-runs", "2",
                    "--warm-iters", "3", "--anatomy", *extra, env=env)


def test_fake_anatomy_is_recorded_with_medians_and_the_measured_runs_clean(jitbench, fake_env):
    res = _anatomy_run(jitbench, "--anatomy-runs", "2", env=fake_env())
    assert res.rc == 0, res.stderr
    case = res.case("numba_matmul_8_f32")
    validate(case, "jitbench.case.v7")
    a = case["anatomy"]
    assert a["runs_requested"] == 2 and len(a["runs"]) == 2
    assert all(r["mode"] == "anatomy" for r in a["runs"])
    nodes = {tuple(n["path"]): n["median_s"] for n in a["summary"]["nodes"]}
    assert nodes[("compile", "pass_a")] == pytest.approx(0.00006)
    assert nodes[("compile", "unattributed")] == pytest.approx(0.00001)
    # The measured cold runs recorded that they carried no instrumentation.
    assert a["summary"]["measured_runs_instrumented"] is False
    for run in case["cold"]["runs"]:
        assert run["worker"]["instrumentation"] == {"anatomy": False, "profiler_session": False}
    # numpy is no JIT: no anatomy processes.
    assert res.case("numpy_matmul_8_f32")["anatomy"] is None
    assert "## Inside the compile" in (res.out / "summary.md").read_text()
    assert jitbench("validate", str(res.out)).rc == 0


def test_another_threads_items_and_what_lies_outside_the_phases_are_shown(jitbench, fake_env):
    res = _anatomy_run(jitbench, "--anatomy-runs", "2", env=fake_env(numba="pool_anatomy"))
    assert res.rc == 0, res.stderr
    case = res.case("numba_matmul_8_f32")
    validate(case, "jitbench.case.v7")
    s = case["anatomy"]["summary"]
    kernels = next(n for n in s["nodes"] if n["path"] == ["compile", "pass_a", "kernels"])
    assert kernels["thread"] == "fake-pool" and kernels["median_s"] == pytest.approx(0.000025)
    assert kernels["thread_median_s"] == pytest.approx(0.00004)
    assert s["outside_phases"] == {"runs": 2, "events": 3, "wall_s": pytest.approx(5e-6),
                                   "thread_s": pytest.approx(7e-6), "first_call_s": pytest.approx(1e-5)}
    summary = (res.out / "summary.md").read_text()
    assert "| Item | Median | Of parent | Thread | Thread time | Source |" in summary, summary
    assert "| · · kernels | 25.0 µs | 42% | fake-pool | 40.0 µs | fake pool event |" in summary, summary
    assert ("Outside every phase (dispatch, execution; in no item above): the framework's events cover 5.0 µs of the "
            "first call's 10.0 µs outside its phases (3 events, 7.0 µs of thread time; medians of 2 processes)"
            in summary), summary
    # numpy has no anatomy; a case file from before these fields reads as before (the replay tests of read.cc).
    assert jitbench("validate", str(res.out)).rc == 0


def test_a_pool_item_that_claims_more_than_its_events_ran_fails(jitbench, fake_env):
    res = _anatomy_run(jitbench, "--anatomy-runs", "1", env=fake_env(numba="lie_pool"))
    assert res.rc == 2, res.stderr
    case = res.case("numba_matmul_8_f32")
    assert (case["status"], case["reason"]) == ("failed", "inconsistent_timings")
    assert "has a wall time of 2.5e-05 s, more than its intervals cover (2e-06 s)" in case["detail"], case["detail"]


def test_outside_phases_and_thread_fields_that_cannot_be_true_fail(jitbench, fake_env):
    """What the events cover outside every phase is part of the first call, and another thread's item says both
    its thread and its thread time: a worker that claims otherwise fails, it is not summarised."""
    res = _anatomy_run(jitbench, "--anatomy-runs", "1", env=fake_env(numba="lie_outside"))
    assert res.rc == 2, res.stderr
    case = res.case("numba_matmul_8_f32")
    assert (case["status"], case["reason"]) == ("failed", "inconsistent_timings"), case
    assert "anatomy.outside_phases.first_call_s" in case["detail"] or "outside every phase cover 100 s" in \
        case["detail"], case["detail"]
    res = _anatomy_run(jitbench, "--anatomy-runs", "1", env=fake_env(numba="lie_thread"))
    assert res.rc == 2, res.stderr
    case = res.case("numba_matmul_8_f32")
    assert case["status"] == "failed" and "thread and thread_s" in case["detail"], case


def test_without_anatomy_nothing_runs_the_profiler(jitbench, fake_env):
    res = jitbench("run", "--cases", "matmul_8_f32", "--backends", "numba", "--cold-runs", "2", "--warm-iters", "3",
                   env=fake_env())
    assert res.rc == 0, res.stderr
    case = res.case("numba_matmul_8_f32")
    assert case["anatomy"] is None
    assert not list((res.out / "logs" / "numba_matmul_8_f32").glob("anatomy-*.log"))
    assert "Inside the compile" not in (res.out / "summary.md").read_text()


def test_a_worker_whose_sub_phases_exceed_their_parent_fails(jitbench, fake_env):
    res = _anatomy_run(jitbench, "--anatomy-runs", "1", env=fake_env(numba="lie_anatomy"))
    assert res.rc == 2, res.stderr
    case = res.case("numba_matmul_8_f32")
    assert (case["status"], case["reason"]) == ("failed", "inconsistent_timings")
    assert "under 'compile' add up to" in case["detail"]
    assert jitbench("validate", str(res.out)).rc == 0


def test_a_measured_run_that_had_a_profiler_open_is_shown(jitbench, fake_env):
    res = _anatomy_run(jitbench, "--anatomy-runs", "1", env=fake_env(numba="profiled_cold"))
    assert res.rc == 0, res.stderr
    assert res.case("numba_matmul_8_f32")["anatomy"]["summary"]["measured_runs_instrumented"] is True
    assert "a measured run carried the profiler" in (res.out / "summary.md").read_text()


def test_anatomy_runs_without_anatomy_is_refused(jitbench, fake_env):
    res = jitbench("run", "--cases", "matmul_8_f32", "--backends", "numba", "--anatomy-runs", "2", env=fake_env())
    assert res.rc == 2
    assert "--anatomy-runs counts the processes of --anatomy" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


@pytest.mark.heavy("jax, numba, tensorflow")
@pytest.mark.parametrize("backend", ["jax_jit_cpu", "numba", "tensorflow", "torch_compile"])
def test_a_real_case_has_an_anatomy_whose_top_item_is_compile_side(jitbench, backend):
    if backend == "torch_compile" and importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed (scripts/setup.sh --with-torch); its recorded stream is replayed above")
    res = jitbench("run", "--cases", "matmul_64_f32", "--backends", backend, "--cold-runs", "1", "--warm-iters", "2",
                   "--anatomy", "--anatomy-runs", "1", timeout=900)
    assert res.rc == 0, res.stderr
    case = res.case(f"{backend}_matmul_64_f32")
    validate(case, "jitbench.case.v7")
    s = case["anatomy"]["summary"]
    subs = [n for n in s["nodes"] if len(n["path"]) > 1 and n["path"][-1] not in ("other", "unattributed")]
    assert subs, s
    # The compile's largest item is the framework's compile (JAX's lowering, one
    # event that holds the whole phase, may be larger: docs/anatomy.md).
    compile_phase = {"tensorflow": "xla_compile", "torch_compile": "inductor"}.get(backend, "compile")
    compile_subs = [n for n in subs if n["path"][0] == compile_phase]
    assert compile_subs, s
    if backend == "tensorflow":
        # tf.function's graph building (the trace) or XLA's code generation: both the JIT's.
        top = max(subs, key=lambda n: n["median_s"])
        assert top["path"][:2] in (["trace", "graph building (tf.function-graph_building)"],
                                   ["xla_compile", "code generation (RunBackend)"]), top
    assert s["anatomy_phases_s"] > 0 and s["measured_phases_s"] > 0 and s["ratio"] > 0
    # The measured cold process ran without the profiler, and says so.
    for run in case["cold"]["runs"]:
        assert run["worker"]["instrumentation"]["anatomy"] is False
        assert run["worker"]["instrumentation"]["profiler_session"] in (False, None)
    assert case["anatomy"]["runs"][0]["worker"]["instrumentation"]["anatomy"] is True
    if backend in ("jax_jit_cpu", "tensorflow"):
        assert case["cold"]["runs"][0]["worker"]["instrumentation"]["profiler_session"] is False
        assert case["anatomy"]["runs"][0]["worker"]["instrumentation"]["profiler_session"] is True


# -- a measured run that lies about the instrumentation ------------------------
def test_a_measured_run_that_reports_anatomy_items_fails(jitbench, fake_env):
    """Only mode anatomy runs the instrumentation: items from a cold run are a lie."""
    res = _anatomy_run(jitbench, "--anatomy-runs", "1", env=fake_env(numba="anatomy_in_cold"))
    assert res.rc == 2, res.stderr
    case = res.case("numba_matmul_8_f32")
    assert case["status"] == "failed" and case["reason"].startswith("protocol_violation")
    assert "a cold run reported an anatomy" in case["detail"]


def test_an_anatomy_run_that_says_it_had_no_instrumentation_fails(jitbench, fake_env):
    res = _anatomy_run(jitbench, "--anatomy-runs", "1", env=fake_env(numba="anatomy_uninstrumented"))
    assert res.rc == 2, res.stderr
    case = res.case("numba_matmul_8_f32")
    assert case["status"] == "failed" and case["reason"].startswith("protocol_violation")
    assert "without instrumentation.anatomy true" in case["detail"]


def test_a_measured_run_without_an_instrumentation_record_is_unknown(jitbench, fake_env):
    res = _anatomy_run(jitbench, "--anatomy-runs", "1", env=fake_env(numba="no_instrumentation"))
    assert res.rc == 0, res.stderr
    assert res.case("numba_matmul_8_f32")["anatomy"]["summary"]["measured_runs_instrumented"] is None
    summary = (res.out / "summary.md").read_text()
    assert "profiler unknown" in summary and "measured runs: no profiler" not in summary


def test_a_measured_run_that_leaves_profiler_output_behind_fails(jitbench, fake_env):
    """The worker says it had no profiler, but its TMPDIR (jitbench's own) holds the profiler's output."""
    res = _anatomy_run(jitbench, "--anatomy-runs", "1", env=fake_env(numba="hidden_profiler"))
    assert res.rc == 2, res.stderr
    case = res.case("numba_matmul_8_f32")
    assert case["status"] == "failed" and case["reason"].startswith("protocol_violation")
    assert "left profiler output" in case["detail"]
    assert case["cold"]["runs"][0]["worker"]["instrumentation"]["profiler_session"] is False


def test_a_worker_whose_sub_phases_overlap_in_time_fails(jitbench, fake_env):
    """Two sub-phases whose sum fits their parent but whose intervals overlap:
    the sums see nothing, the intervals do."""
    res = _anatomy_run(jitbench, "--anatomy-runs", "1", env=fake_env(numba="overlap_anatomy"))
    assert res.rc == 2, res.stderr
    case = res.case("numba_matmul_8_f32")
    assert (case["status"], case["reason"]) == ("failed", "inconsistent_timings")
    assert "overlap in time" in case["detail"]


# -- compare and bisect: which sub-phase moved ---------------------------------
def test_compare_names_the_sub_phase_that_moved(jitbench, fake_env):
    """NEW's pass_a takes three times as long: compare's "Inside the compile"
    puts the compile first, of which pass_a, with its ratio and, from 3
    processes a side, each side's n and range rather than a CI (the Sampling
    rule asks 6); pass_b did not move. Without anatomy on a side, no such
    section."""
    def run(**extra):
        env = dict(fake_env(), **extra)
        return jitbench("run", "--cases", "matmul_8_f32", "--backends", "numba", "--cold-runs", "2",
                        "--warm-iters", "3", "--anatomy", "--anatomy-runs", "3", env=env)

    base, new = run(), run(FAKE_WORKER_SLOW_PASS="3")
    assert base.rc == 0 and new.rc == 0, base.stderr + new.stderr
    res = jitbench("compare", str(base.out), str(new.out))
    assert res.rc == 0, res.stderr
    block = res.stdout.split("Inside the compile")[1]
    headline = block.splitlines()[2]
    assert headline.strip().startswith("compile +120.0 µs (×"), block
    assert "of which pass_a +120.0 µs (×3.00; n = 3, all 60.0 µs → n = 3, all 180.0 µs)" in headline, block
    lines = [line.strip() for line in block.splitlines()]
    # The compile and pass_a moved by the same 120 µs: the phase is listed first, then the sub-phase.
    assert lines[3].startswith("compile ") and lines[4].startswith("compile › pass_a"), block
    assert any(line.startswith("compile › pass_b") and "±0 s" in line for line in lines), block
    plain = jitbench("run", "--cases", "matmul_8_f32", "--backends", "numba", "--cold-runs", "2", "--warm-iters", "3",
                     env=fake_env())
    assert "Inside the compile" not in jitbench("compare", str(base.out), str(plain.out)).stdout


def test_bisect_anatomy_runs_without_anatomy_is_refused(jitbench, tmp_path):
    res = jitbench("bisect", "--package", "numpy", "--good", "1.0", "--bad", "2.0", "--anatomy-runs", "2",
                   "--out-dir", str(tmp_path / "b"))
    assert res.rc == 2
    assert "--anatomy-runs counts the anatomy processes of the boundary's confirmation: add --anatomy" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "b").exists()


@pytest.mark.heavy("jax, tensorflow")
@pytest.mark.parametrize("module,cls,name,data", [
    (jax_anatomy, "JaxAnatomy", "perfetto_trace.json.gz", b"\x1f\x8b not a gzip stream"),
    (tf_anatomy, "TfAnatomy", "host.xplane.pb", b"\x00\x00\x00")])  # field number 0: no protobuf
def test_the_profilers_output_is_removed_even_when_it_cannot_be_read(tmp_path, module, cls, name, data):
    """A trace the parser refuses still leaves no profiler directory behind."""
    if module is tf_anatomy:
        pytest.importorskip("tensorflow")
    import types
    framework = types.SimpleNamespace(__version__="2.21.0" if module is tf_anatomy else "0.10.2")
    session = getattr(module, cls)(framework)
    session.dir = str(tmp_path / "jitbench-anatomy-x")
    where = tmp_path / "jitbench-anatomy-x" / "plugins" / "profile" / "run"
    where.mkdir(parents=True)
    (where / name).write_bytes(data)
    with pytest.raises(Exception):
        session.report({}, 0.0, 1.0)
    assert not (tmp_path / "jitbench-anatomy-x").exists()


@pytest.mark.parametrize("name", ["jax-0.7.2-mc_pi_100000_f64.json", "jax-0.8.0-mc_pi_100000_f64.json"])
def test_a_recorded_stream_gives_what_lies_outside_every_phase(name):
    """The recorded streams carry the first call's end: replayed, they give the outside-the-phases figure as a
    live run does (JSON's spans are lists where the live ones are tuples), and it can be true."""
    stream = json.loads((DATA / name).read_text())
    outside = {}
    jax_anatomy.items(stream["events"], stream["spans"], stream["t_first_call"], stream["version"], None,
                      stream["t_first_call_end"], outside)
    assert outside["events"] >= 1 and outside["events"] == int(outside["events"]), outside
    assert 0 < outside["wall_s"] <= outside["thread_s"] + 1e-9, outside
    assert outside["wall_s"] <= stream["t_first_call_end"] - stream["t_first_call"], outside
