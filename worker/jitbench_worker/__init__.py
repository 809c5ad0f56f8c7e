"""jitbench's Python worker: runs one measurement in a fresh process and reports
it on an inherited file descriptor (docs/protocol.md). Importing this package
must stay cheap: nothing here may import a framework at module level."""

import time as _time

# The worker's first line, on both clocks: spawn -> here is the interpreter's own
# start-up (jitbench reads CLOCK_MONOTONIC before the spawn; time.monotonic_ns
# is that clock), and every harness bucket after it is timed from here.
# One reading where perf_counter is CLOCK_MONOTONIC (Linux): two reads would let
# a preemption between them (tens of ms on a busy machine) open a gap between
# the buckets that jitbench would rightly call inconsistent_timings.
SAME_CLOCK = _time.get_clock_info("perf_counter").implementation == _time.get_clock_info("monotonic").implementation
STARTED_MONOTONIC_NS = _time.monotonic_ns()
STARTED_PERF = STARTED_MONOTONIC_NS / 1e9 if SAME_CLOCK else _time.perf_counter()

PROTOCOL_VERSION = 1
