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


_THREAD_ID = re.compile(r"/-?\d+$")


def thread_group(thread):
    """The pool a thread belongs to: its name without the id XLA and
    TensorFlow append ("tf_xla-cpu-codegen/3734689383345416445" ->
    "tf_xla-cpu-codegen"), so that a pool's threads read as one."""
    return _THREAD_ID.sub("", thread) or thread


class _Tree:
    """The items as events are placed: the dispatching thread's summed by
    path as before; another thread's grouped by path and thread group (a
    pool's events of every compile under one item per stage), their wall time
    set afterwards (_walls)."""

    def __init__(self, table, source_prefix):
        self.table, self.prefix, self.items, self.group_of = table, source_prefix, {}, {}

    def add(self, parent, name, thread, a, b, clip):
        label, bare = label_for(name, self.table)
        group = None if thread is None else thread_group(thread)
        path = parent + (label,)
        if self.group_of.setdefault(path, group) != group:  # one label, two threads, one parent: kept apart
            path = parent + (f"{label} [{group or 'dispatching thread'}]",)
            self.group_of.setdefault(path, group)
        item = self.items.setdefault(path, {"path": list(path), "s": 0.0, "source": f"{self.prefix} {bare}"})
        if group is None:
            item["s"] += b - a
        else:
            item["thread"] = group
            item["thread_s"] = item.get("thread_s", 0.0) + (b - a)
        item.setdefault("intervals", []).append([a, b])
        if clip:
            item["clipped_s"] = round(item.get("clipped_s", 0.0) + clip, 9)
        return path


def _piece(out, a, b, w):
    if out and out[-1][1] == a and out[-1][2] == w:
        out[-1] = (out[-1][0], b, w)
    else:
        out.append((a, b, w))


_WEIGHT = object()


def _share(weights, groups):
    """Each instant's weight [(start, end, w)] split evenly among the groups
    {key: disjoint intervals} active at that instant: ({key: [(start, end,
    w')]}, the weight where none is active)."""
    edges = [(p, starts, _WEIGHT, w) for a, b, w in weights for p, starts in ((a, 1), (b, 0))]
    edges += [(p, starts, key, 0.0) for key, ivs in groups.items() for a, b in ivs for p, starts in ((a, 1), (b, 0))]
    edges.sort(key=lambda e: (e[0], e[1]))  # an interval's end before another's start at the same instant
    shares, rest, active, w, last = {key: [] for key in groups}, [], set(), 0.0, None
    for p, starts, key, value in edges:
        if last is not None and p > last and w > 0:
            if active:
                for k in active:
                    _piece(shares[k], last, p, w / len(active))
            else:
                _piece(rest, last, p, w)
        last = p
        if key is _WEIGHT:
            w = value if starts else 0.0
        elif starts:
            active.add(key)
        else:
            active.discard(key)
    return shares, rest


def _walls(items, spans):
    """Another thread's items get the wall time their parent waited for them:
    within the parent's wall time, the instants its own thread's children do
    not hold, split evenly among the other threads' items running then (a
    pool's item splits its own wall among its children the same way, with
    its own thread group's children first). Children's walls so never add up
    to more than their parent's; each item's thread time (thread_s, summed
    over the threads) is beside it and may exceed its parent's wall."""
    children = {}
    for path in items:
        children.setdefault(path[:-1], []).append(path)

    def visit(path, weights, group):
        kids = children.get(path, [])
        ivs = {k: merged(items[k]["intervals"]) for k in kids}
        own, rest = _share(weights, {k: ivs[k] for k in kids if items[k].get("thread") == group})
        other, _ = _share(rest, {k: ivs[k] for k in kids if items[k].get("thread") != group})
        for k, pieces in {**own, **other}.items():
            if items[k].get("thread") is None:
                pieces = [(a, b, 1.0) for a, b in ivs[k]]  # the dispatching thread's: its own intervals
            else:
                items[k]["s"] = sum((b - a) * w for a, b, w in pieces)
                items[k]["intervals"] = [list(iv) for iv in ivs[k]]
            visit(k, pieces, items[k].get("thread"))

    for phase, phase_ivs in spans.items():
        visit((phase,), [(a, b, 1.0) for a, b in phase_ivs], None)


def outside_phases(events, spans, window):
    """What the framework's events cover of the first call [start, end]
    outside every phase (its dispatch, the execution, argument handling):
    {"events": how many lie there in part, "wall_s": the time they cover,
    "thread_s": the same summed over their threads, "first_call_s": the
    first call's time outside every phase}."""
    gaps = minus([window], [iv for ivs in spans.values() for iv in ivs])
    starts = [a for a, _ in gaps]
    pieces, per_thread, n = [], {}, 0
    for e in events:
        i = max(bisect.bisect_right(starts, e[0]) - 1, 0)
        mine = []
        while i < len(gaps) and gaps[i][0] < e[1]:
            a, b = max(gaps[i][0], e[0]), min(gaps[i][1], e[1])
            if b > a:
                mine.append((a, b))
            i += 1
        if mine:
            n += 1
            pieces += mine
            per_thread.setdefault(e[3] if len(e) > 3 else None, []).extend(mine)
    cover = lambda ivs: sum(b - a for a, b in merged(ivs))  # noqa: E731
    return {"events": n, "wall_s": round(cover(pieces), 9),
            "thread_s": round(sum(cover(ivs) for ivs in per_thread.values()), 9),
            "first_call_s": round(sum(b - a for a, b in gaps), 9)}


def _innermost(holders, span, phase):
    """The interval `span` cut where the innermost holder changes: [(start,
    end, path)], each piece under the holder with the longest path there (a
    piece placed under another holder is deeper than it), the phase where
    none holds it."""
    edges = sorted((p, starts, k) for k, (a, b, _) in enumerate(holders) for p, starts in ((a, 1), (b, 0)))
    out, active, last = [], set(), span[0]
    for p, starts, k in edges + [(span[1], 0, None)]:
        if p > last:
            path = max((holders[i][2] for i in active), key=len, default=phase)
            if out and out[-1][1] == last and out[-1][2] == path:
                out[-1] = (out[-1][0], p, path)
            else:
                out.append((last, p, path))
            last = p
        if k is not None:
            (active.add if starts else active.discard)(k)
    return out


def _overlapping(pieces, a, b, starts=None):
    """The pieces [(start, end, path)] (sorted, disjoint; `starts` their starts) that overlap [a, b], cut to it."""
    i = max(bisect.bisect_right(starts if starts is not None else [x for x, _, _ in pieces], a) - 1, 0)
    while i < len(pieces) and pieces[i][0] < b:
        x, y = max(a, pieces[i][0]), min(b, pieces[i][1])
        if y > x:
            yield x, y, pieces[i][2]
        i += 1


def _place_thread(tree, events, holders, dropped):
    """One other thread's events (sorted): each nested under its own thread's
    enclosing event, an outermost one under the innermost holder (an item of
    the dispatching thread, or of a thread group placed before) whose
    interval holds it, cut where the holders change (a pool's kernel compile
    that the dispatching thread waits for in two of its items is in each for
    the time it ran there). Returns its pieces, holders for the next group."""
    stack, out, starts = [], [], [x for x, _, _ in holders]  # stack: [(end, pieces)] of its open events
    for a, b, name, thread, clip in events:
        while stack and stack[-1][0] <= a:
            stack.pop()
        if stack and b > stack[-1][0]:
            _drop(dropped, "overlaps its parent's end", a, b)
            continue
        pieces = []
        for x, y, parent in _overlapping(*((stack[-1][1], a, b) if stack else (holders, a, b, starts))):
            pieces.append((x, y, tree.add(parent, name, thread, x, y, clip)))
            clip = 0.0
        stack.append((b, pieces))
        out += pieces
    return out


def _place(tree, where, events, dropped):
    """The events that lie in one phase interval: the dispatching thread's
    nested by interval under the phase, then each other thread group's, in
    the order their first events ran (a pool that another waits for comes
    after it), under what was placed before (_place_thread)."""
    phase, stack, holders, groups = (where[2],), [], [], {}
    for a, b, name, thread, clip in events:
        if thread is not None:
            groups.setdefault(thread_group(thread), {}).setdefault(thread, []).append((a, b, name, thread, clip))
            continue
        while stack and stack[-1][0] <= a:
            stack.pop()
        if stack and b > stack[-1][0]:
            _drop(dropped, "overlaps its parent's end", a, b)
            continue  # not nested: left out rather than counted twice
        path = tree.add(stack[-1][1] if stack else phase, name, None, a, b, clip)
        stack.append((b, path))
        holders.append((a, b, path))
    for group in sorted(groups, key=lambda g: min(evs[0][0] for evs in groups[g].values())):
        cuts = _innermost(holders, where[:2], phase)
        for evs in groups[group].values():
            holders += _place_thread(tree, evs, cuts, dropped)


def nest(events, spans, table, source_prefix, main_thread=None, dropped=None, origin=None):
    """Framework events [(start_s, end_s, name)] or [(start_s, end_s, name,
    thread)] on jitbench's clock, placed under the phase intervals {phase:
    [(start, end)]} they lie in (the phases' intervals disjoint: see minus) and
    nested by interval inside it. The dispatching thread's events (thread ==
    main_thread; every event when main_thread is None) nest by interval under
    their phase; another thread's under its own thread's enclosing event, or
    under the item of another thread whose interval holds it (_place_thread),
    marked with its thread group ("thread") and its thread time ("thread_s")
    beside its wall time ("s", _walls). Events left out are counted in
    dropped ({why: {"events": n, "s": total}}). An event clipped to the phase
    it encloses says so (its item's "clipped_s"). With an origin (the first
    call's start) every item carries its intervals relative to it (another
    thread's item: their union), for jitbench to check nesting by interval,
    not by sums. Returns the phases' items and their sub-phases' (paths
    summed)."""
    spans = {phase: merged(ivs) for phase, ivs in spans.items()}
    starts = sorted((a, b, phase) for phase, ivs in spans.items() for a, b in ivs)
    keys = [a for a, _, _ in starts]
    placed = {}
    for e in sorted(events, key=lambda e: (e[0], -(e[1] - e[0]))):
        a, b, name = e[0], e[1], e[2]
        thread = e[3] if main_thread is not None and len(e) > 3 and e[3] != main_thread else None
        where, clipped = _phase_of(a, b, starts, keys)
        if where is None:
            _drop(dropped, "not inside one phase", a, b)
            continue
        pa, pb, _ = where
        ca, cb = max(a, pa), min(b, pb)
        if cb <= ca:  # wholly in the tolerance beside its phase: nothing of it lies inside
            _drop(dropped, "beside its phase, not inside it", a, b)
            continue
        placed.setdefault(where, []).append((ca, cb, name, thread, (b - a) - (cb - ca) if clipped else 0.0))
    tree = _Tree(table, source_prefix)
    for where, evs in placed.items():
        _place(tree, where, evs, dropped)
    items = tree.items
    _walls(items, spans)
    for item in items.values():
        if origin is None:
            del item["intervals"]
        else:
            item["intervals"] = [[a - origin, b - origin] for a, b in item["intervals"]]
    return _on_the_ns_clock(phase_items(spans, origin) + list(items.values()))


def _on_the_ns_clock(items):
    """Seconds rounded to the nanosecond: a difference of two clock readings
    below one tick is no duration (jitbench takes 0 or >= 1 ns)."""
    for item in items:
        item["s"] = round(item["s"], 9)
        if "thread_s" in item:
            item["thread_s"] = round(item["thread_s"], 9)
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
