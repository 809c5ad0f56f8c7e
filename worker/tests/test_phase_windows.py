"""How the worker turns the frameworks' phase events into a call's phases
(jitbench_worker.backends.base.Recorder): an event nested in another of the
same phase counts once. JAX reports a trace event for every inner jit it traces
while tracing the outer one (jnp functions are jitted), so summing them made the
phases of mc_pi's first call add up to more than the call (inconsistent_timings
with jax 0.8.0 and 0.9.0, docs/results-releases.md)."""

import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "worker"))

from jitbench_worker.backends.base import Recorder, covered  # noqa: E402

pytestmark = pytest.mark.quick


def replayed(events):
    """A recording recorder fed (ends at, phase, seconds) events, as the hooks add them."""
    r = Recorder()
    r.start()
    for at, phase, seconds in events:
        r.add(phase, seconds, at=at)
    return r


def test_a_nested_event_of_the_same_phase_counts_once():
    r = replayed([
        (0.9, "trace", 0.2),  # the inner jit, traced inside ...
        (1.0, "trace", 0.5),  # ... the outer one: 0.5 s in all, not 0.7
        (2.0, "trace", 0.1),  # a later trace of its own
        (1.3, "lower", 0.3),  # another phase is never merged with trace
    ])
    phases = r.window(0.0, 3.0)["phases"]
    assert phases["trace"] == pytest.approx(0.6)
    assert phases["lower"] == pytest.approx(0.3)


def test_self_times_and_unpositioned_times_are_summed_as_they_are():
    # torch's exclusive times of a parent and its child, stamped at nearly the same moment.
    r = Recorder()
    r.start()
    r.add("dynamo", 0.4, at=1.0, disjoint=True)
    r.add("dynamo", 0.3, at=1.0, disjoint=True)
    assert r.window(0.0, 2.0)["phases"]["dynamo"] == pytest.approx(0.7)


def test_an_event_belongs_to_the_window_it_ends_in():
    r = replayed([(1.0, "compile", 0.5), (2.0, "compile", 0.5)])
    assert r.window(0.0, 1.0)["phases"] == {"compile": pytest.approx(0.5)}
    assert r.window(1.0, 2.0)["phases"] == {"compile": pytest.approx(0.5)}


def test_covered_is_the_length_of_the_union():
    assert covered([]) == 0.0
    assert covered([(0, 1), (2, 3)]) == pytest.approx(2.0)
    assert covered([(0, 2), (1, 3)]) == pytest.approx(3.0)
    assert covered([(0, 3), (1, 2)]) == pytest.approx(3.0)


# JAX 0.8.0's duration events for mc_pi's first call (n=1e5, f64), as its
# monitoring listener saw them: (seconds after the call began when the event
# fired, event, duration). The jnp functions' own traces (eight of their nine
# shown) fire inside the outer <lambda>'s trace. The call took 0.4295 s.
JAX_080_MC_PI = [
    (0.0077, "trace", 0.0005), (0.0091, "trace", 0.0010), (0.0146, "trace", 0.0049),
    (0.0170, "trace", 0.0003), (0.0237, "trace", 0.0004), (0.0244, "trace", 0.0003),
    (0.0252, "trace", 0.0004), (0.0629, "trace", 0.0372),  # _reduce_sum
    (0.0632, "trace", 0.0628),  # <lambda>, the function jitbench times
    (0.1413, "lower", 0.0504), (0.4271, "compile", 0.2850),
]


def test_jax_inner_traces_are_inside_the_outer_one_and_the_phases_inside_the_call():
    r = replayed(JAX_080_MC_PI)
    phases = r.window(0.0, 0.4295)["phases"]
    assert phases["trace"] == pytest.approx(0.0628)
    assert sum(phases.values()) <= 0.4295
    # Summed, the same events made the phases longer than the call.
    assert sum(s for _, _, s in JAX_080_MC_PI) > 0.4295


# JAX 0.7.0's events for rnn_scan's first call (64 steps), as its listener saw
# them: lowering the scan traces jnp helpers (less, add) inside the lower
# event. Counted as trace too, the phases came to 1 ms more than the call
# (failed / inconsistent_timings, docs/results-releases.md at 97683de).
JAX_070_RNN_SCAN = [
    (0.0076, "trace", 0.0015), (0.0089, "trace", 0.0005), (0.0101, "trace", 0.0004),
    (0.0109, "trace", 0.0106),  # run, the function jitbench times
    (0.0387, "trace", 0.0010), (0.0417, "trace", 0.0012),  # less, add: inside the lowering
    (0.0493, "lower", 0.0372), (0.2452, "compile_total", 0.1951),
]


def test_jax_traces_inside_a_lowering_are_the_lowerings_time():
    from jitbench_worker.backends.jax_ import JaxAdapter

    r = replayed(JAX_070_RNN_SCAN)
    adapter = object.__new__(JaxAdapter)  # summarize reads only the window and the cache settings
    adapter._cache = {}
    phases = adapter.summarize(r.window(0.0, 0.2466))["phases"]
    assert phases["trace"] == pytest.approx(0.0106)
    assert phases["lower"] == pytest.approx(0.0372)
    assert sum(phases.values()) <= 0.2466
