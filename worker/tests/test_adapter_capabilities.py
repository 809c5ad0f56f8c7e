"""What an adapter can or cannot do is asked of the adapter: a capability it
lacks is a method of the base class that raises Unsupported (the ahead-of-time
compile behind the AOT cross-check), and the precision it observed is kept by
the adapter itself, not set on it from outside by the runner."""

import sys

import numpy as np
import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "worker"))

from jitbench_worker import runner  # noqa: E402
from jitbench_worker.backends.base import Adapter, Unsupported  # noqa: E402
from jitbench_worker.backends.numpy_ import NumpyAdapter  # noqa: E402

pytestmark = pytest.mark.quick


class Ticking:
    """A clock that moves one second per reading: each step's time is known."""

    def __init__(self):
        self.t = 0.0

    def __call__(self):
        self.t += 1.0
        return self.t


def test_an_adapter_without_an_ahead_of_time_path_raises_unsupported():
    adapter = NumpyAdapter()
    with pytest.raises(Unsupported, match="no ahead-of-time compile path"):
        adapter.aot_compile(lambda x: x, (1.0,), Ticking())


def test_the_aot_step_of_an_adapter_without_one_is_a_skip_with_the_adapters_reason():
    adapter = NumpyAdapter()
    with pytest.raises(runner.Skip, match=r"^unsupported: numpy has no ahead-of-time compile path") as caught:
        runner.aot_step(adapter, lambda x: x, (1.0,))
    assert not caught.value.detail
    assert not adapter.recorder.active, "the skipped step left the recorder running"


class Staged(Adapter):
    """An adapter whose framework has an ahead-of-time path (as jax.jit's)."""
    name = "staged"

    def aot_compile(self, fn, inputs, clock):
        t0 = clock()
        t1 = clock()
        return (lambda *a: fn(*a) + 1), {"trace_s": t1 - t0, "lower_s": 2.0, "compile_s": 3.0}

    def sync(self, out):
        return out


def test_the_aot_step_runs_what_the_adapter_compiled_and_keeps_its_steps():
    out = runner.aot_step(Staged(), lambda x: x * 2, (5,))
    assert out["first"] == 11 and out["last"] == 11
    assert out["aot"]["lower_s"] == 2.0 and out["aot"]["compile_s"] == 3.0 and out["aot"]["trace_s"] >= 0
    assert out["aot"]["execute_s"] >= 0


class Observing(Adapter):
    name = "observing"

    def __init__(self, seen):
        super().__init__()
        self.seen = seen

    def observe_precision(self, fn, inputs):
        return self.seen

    def precision_info(self, dtype):
        info = super().precision_info(dtype)
        info["read_back"] = self.observed  # what an adapter's rule may depend on (JAX on a GPU)
        return info


def test_the_adapter_keeps_what_it_observed_and_its_report_carries_it():
    seen = {"observed": True, "source": "test", "dot_precision": ["HIGHEST,HIGHEST"]}
    adapter = Observing(seen)
    info = adapter.precision_report(None, (), "f32")
    assert adapter.observed == seen
    assert info["read_back"] == seen, "precision_info ran before the observation was kept"
    assert info["observation"] == seen


def test_an_adapter_that_observes_nothing_reports_a_declared_format():
    info = Observing(None).precision_report(None, (), "f32")
    assert info["observation"]["observed"] is False
    assert info["observation"]["note"].startswith("declared, not observed")


@pytest.mark.heavy("jax")
def test_jax_jit_stages_are_timed_and_a_plain_function_is_unsupported():
    jax_ = pytest.importorskip("jax")
    from jitbench_worker.backends.jax_ import JaxAdapter

    adapter = JaxAdapter("cpu")
    adapter.import_framework("f32", None)
    with pytest.raises(Unsupported, match="not a jax.jit function"):
        adapter.aot_compile(lambda x: x, (1.0,), Ticking())
    compiled, steps = adapter.aot_compile(jax_.jit(lambda x: x + 1), (jax_.numpy.float32(1),), Ticking())
    assert steps == {"trace_s": 1.0, "lower_s": 1.0, "compile_s": 1.0}
    assert float(compiled(jax_.numpy.float32(1))) == 2.0


class Preparing(Staged):
    """Records the order in which the AOT step asks for set-up and compile."""

    def __init__(self):
        super().__init__()
        self.order = []

    def aot_prepare(self, fn, inputs):
        self.order.append(("prepare", self.recorder.active))
        return "set up"

    def aot_compile(self, fn, inputs, clock):
        self.order.append(("compile", self.recorder.active))
        return super().aot_compile(fn, inputs, clock)


def test_the_aot_step_does_the_one_time_set_up_first_off_the_clock_and_outside_the_window():
    adapter = Preparing()
    out = runner.aot_step(adapter, lambda x: x * 2, (5,))
    assert adapter.order == [("prepare", False), ("compile", True)]
    assert out["aot"]["dispatch_setup_s"] >= 0 and out["aot"]["lower_s"] == 2.0


@pytest.mark.heavy("jax")
def test_jax_aot_process_traces_once_before_the_clocked_trace_and_lowers_nothing():
    """JAX's one-time dispatch set-up (which the cold runs pay outside the trace
    event) is paid on a throw-away function before the clocked trace; lowering
    and compiling, whose first-time costs the cold runs' events hold, are not."""
    jax_ = pytest.importorskip("jax")
    from jitbench_worker.backends.jax_ import JaxAdapter

    adapter = JaxAdapter("cpu")
    adapter.import_framework("f32", None)
    fn = jax_.jit(lambda x: x * 3)
    x = jax_.device_put(np.ones(4, np.float32))
    events = []
    jax_.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **kw: events.append((event.rsplit("/", 1)[-1], kw.get("fun_name"))))
    runner.aot_step(adapter, fn, (x,))
    traces = [name for e, name in events if e == "jaxpr_trace_duration"]
    assert traces == ["jitbench_dispatch_setup", "<lambda>"], events
    lowered = [name for e, name in events if e == "jaxpr_to_mlir_module_duration"]
    assert lowered == ["jit(<lambda>)"], "the set-up lowered something of its own"


@pytest.mark.heavy("jax")
def test_jax_listeners_only_append_inside_the_call_and_are_classified_after_it():
    """Nothing but a tuple appended runs in the measured call on JAX's behalf:
    the recorder holds no event until collect_events, after the clock."""
    jax_ = pytest.importorskip("jax")
    from jitbench_worker.backends.jax_ import JaxAdapter

    adapter = JaxAdapter("cpu")
    adapter.import_framework("f32", None)
    fn = jax_.jit(lambda x: x * 2)
    x = jax_.device_put(np.ones(4, np.float32))
    adapter.recorder.start()
    fn(x).block_until_ready()
    assert adapter.recorder.events == [], "events were classified inside the measured call"
    assert len(adapter._raw) >= 3
    adapter.recorder.stop()
    fn(x + 1).block_until_ready()  # after the clock: appended, never counted
    adapter.collect_events()
    w = adapter.summarize(adapter.recorder.window(0.0, float("inf")))
    assert {"trace", "lower", "compile"} <= set(w["phases"]) and w["compiles"] == 1, w
    assert adapter._raw == []
