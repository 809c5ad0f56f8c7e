"""Compile anatomy (--mode anatomy): the first call's phases broken down by
the framework's own instrumentation, in a process of its own so that no
measured cold run ever carries it.

An anatomy is a flat list of items, each {"path": [phase, sub, ...], "s":
seconds, "source": what measured it}. path[0] is a jitbench phase of the
adapter (or a group of its phases that the framework's timers cannot split,
such as numba's whole compile); each further element is a sub-phase named by
the adapter's mapping table. Items with the same path are summed (a pass that
runs once per compiled function). Every item lies inside its parent as an
interval, so the children of an item never add up to more than it: jitbench
checks that (a worker that reports more fails inconsistent_timings) and shows
what the children leave of their parent as unattributed.

Adapters provide an anatomy session (Adapter.anatomy_session): begin() before
the first call, end() after the measured calls and report(spans,
t_first_call, t_first_call_end) once every clock has stopped."""

import bisect
import re

# A framework event that sticks out of the phase interval it lies in by more
# than this is not that phase's (it is left out, never stretched over two).
_TOLERANCE_S = 2e-4
_MODULE_SUFFIX = re.compile(r" \([^()]*\)$")


def release_table(tables, version):
    """The newest mapping table whose release is <= version: tables is
    [((major, minor, patch), {event name: sub-phase label}), ...], oldest first."""
    parts = tuple(int(x) for x in re.findall(r"\d+", version)[:3])
    chosen = tables[0]
    for release, table in tables:
        if parts >= release:
            chosen = (release, table)
    return chosen


def label_for(name, table):
    """The sub-phase an event belongs to and the event's own name without the
    module it ran for ("simplification (jit_f)" -> "simplification")."""
    bare = _MODULE_SUFFIX.sub("", name)
    return table.get(bare, bare), bare


def merged(intervals):
    """The union of (start, end) intervals as disjoint intervals, in order."""
    out = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def minus(intervals, holes):
    """Disjoint intervals with every part that lies in a hole taken out."""
    out = []
    for a, b in merged(intervals):
        for h0, h1 in merged(holes):
            if h1 <= a or h0 >= b:
                continue
            if h0 > a:
                out.append((a, h0))
            a = max(a, h1)
            if a >= b:
                break
        if a < b:
            out.append((a, b))
    return out


def phase_items(spans, origin=None):
    """One item per phase: the time its (disjoint) intervals cover; with an
    origin, the intervals themselves, relative to it."""
    out = []
    for phase, ivs in spans.items():
        if ivs:
            out.append({"path": [phase], "s": sum(b - a for a, b in ivs), "source": "jitbench phase"})
            if origin is not None:
                out[-1]["intervals"] = [[a - origin, b - origin] for a, b in ivs]
    return out


def _phase_of(a, b, starts, keys):
    """The phase interval (start, end, phase) an event lies in (within the
    tolerance) and whether it was clipped from one it encloses whole; None for
    an event in no phase, or one over several."""
    i = bisect.bisect_right(keys, a + _TOLERANCE_S) - 1
    if i >= 0:
        pa, pb, phase = starts[i]
        if a >= pa - _TOLERANCE_S and b <= pb + _TOLERANCE_S:
            return starts[i], False
    # An event that holds a whole phase interval (JAX's lower_sharding_computation
    # starts before the lowering's span and ends with it): that interval's,
    # clipped to it, when it holds just one.
    held = [iv for iv in starts if a <= iv[0] and b >= iv[1]]
    inside = [iv for iv in starts if iv[0] < b and iv[1] > a]
    if len(held) == 1 and len(inside) == 1:
        return held[0], True
    return None, False


def _drop(dropped, why, a, b):
    if dropped is not None:
        d = dropped.setdefault(why, {"events": 0, "s": 0.0})
        d["events"] += 1
        d["s"] = round(d["s"] + (b - a), 9)


def nest(events, spans, table, source_prefix, main_thread=None, dropped=None, origin=None):
    """Framework events [(start_s, end_s, name)] or [(start_s, end_s, name,
    thread)] on jitbench's clock, placed under the phase intervals {phase:
    [(start, end)]} they lie in (the phases' intervals disjoint: see minus) and
    nested by interval inside it. Only the main thread's events (thread ==
    main_thread; every event when main_thread is None) form the tree: another
    thread's event runs beside them, not inside them, and is left out. Events
    left out are counted in dropped ({why: {"events": n, "s": total}}). An
    event clipped to the phase it encloses says so (its item's "clipped_s").
    With an origin (the first call's start) every item carries its intervals
    relative to it, for jitbench to check nesting by interval, not by sums.
    Returns the phases' items and their sub-phases' (paths summed)."""
    spans = {phase: merged(ivs) for phase, ivs in spans.items()}
    starts = sorted((a, b, phase) for phase, ivs in spans.items() for a, b in ivs)
    keys = [a for a, _, _ in starts]
    placed = {}
    for e in sorted(events, key=lambda e: (e[0], -(e[1] - e[0]))):
        a, b, name = e[0], e[1], e[2]
        if main_thread is not None and len(e) > 3 and e[3] != main_thread:
            _drop(dropped, "another thread", a, b)
            continue
        where, clipped = _phase_of(a, b, starts, keys)
        if where is None:
            _drop(dropped, "not inside one phase", a, b)
            continue
        pa, pb, _ = where
        ca, cb = max(a, pa), min(b, pb)
        if cb <= ca:  # wholly in the tolerance beside its phase: nothing of it lies inside
            _drop(dropped, "beside its phase, not inside it", a, b)
            continue
        placed.setdefault(where, []).append((ca, cb, name, (b - a) - (cb - ca) if clipped else 0.0))
    items = {}
    for (_, _, phase), evs in placed.items():
        stack = []  # [(end, path)] of the open ancestors
        for a, b, name, clip in evs:
            while stack and stack[-1][0] <= a:
                stack.pop()
            if stack and b > stack[-1][0]:
                _drop(dropped, "overlaps its parent's end", a, b)
                continue  # not nested: left out rather than counted twice
            label, bare = label_for(name, table)
            path = (stack[-1][1] if stack else (phase,)) + (label,)
            item = items.setdefault(path, {"path": list(path), "s": 0.0, "source": f"{source_prefix} {bare}"})
            item["s"] += b - a
            if origin is not None:
                item.setdefault("intervals", []).append([a - origin, b - origin])
            if clip:
                item["clipped_s"] = round(item.get("clipped_s", 0.0) + clip, 9)
            stack.append((b, path))
    return _on_the_ns_clock(phase_items(spans, origin) + list(items.values()))


def _on_the_ns_clock(items):
    """Seconds rounded to the nanosecond: a difference of two clock readings
    below one tick is no duration (jitbench takes 0 or >= 1 ns)."""
    for item in items:
        item["s"] = round(item["s"], 9)
        if "intervals" in item:
            item["intervals"] = [[round(a, 9), round(b, 9)] for a, b in item["intervals"]]
    return items


def as_duration_items(phase, intervals, durations, source):
    """Items that have no position in time (numba's pass timers): each a
    duration, summed by name, under one phase given by its intervals."""
    items = {(phase,): {"path": [phase], "s": sum(b - a for a, b in merged(intervals)), "source": "jitbench phase"}}
    for name, seconds in durations:
        item = items.setdefault((phase, name), {"path": [phase, name], "s": 0.0, "source": f"{source} {name}"})
        item["s"] += seconds
    return _on_the_ns_clock(list(items.values()))
