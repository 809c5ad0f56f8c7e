"""Instructions counted per phase (--mode count; docs/noise.md, "Instructions").

A counting process marks the boundaries between its phases; what lies between
two consecutive marks is that phase's count. Two sources:

  valgrind  the process runs under callgrind (jitbench starts it so); each
            mark is CALLGRIND_DUMP_STATS_AT(name), and callgrind writes the
            instructions since the previous mark to a file that jitbench reads
            after the process has exited. The worker never sees a count.
  hardware  the worker opens perf_event_open's user-space instruction counter
            of its own thread and reads it at each mark; it reports the
            segments itself.

Both go through libjitbench-count (native/count.cc), loaded from the path
jitbench gives in JITBENCH_COUNT_LIB: it travels with jitbench, so any
interpreter (an --env environment's) can load it. Nothing here imports a
framework."""

import ctypes
import os


class CountError(Exception):
    """The counter cannot be used in this process (the library missing, not
    under valgrind, no PMU): the counting process fails and says why."""


def _library():
    path = os.environ.get("JITBENCH_COUNT_LIB")
    if not path:
        raise CountError("JITBENCH_COUNT_LIB is not set: jitbench names its counting library for counting processes")
    try:
        lib = ctypes.CDLL(path)
    except OSError as exc:
        raise CountError(f"cannot load the counting library {path}: {exc}") from None
    lib.jitbench_count_dump.argtypes = [ctypes.c_char_p]
    lib.jitbench_count_dump.restype = None
    lib.jitbench_count_hw_read.restype = ctypes.c_longlong
    return lib


class ValgrindCounter:
    source = "valgrind"

    def __init__(self, lib):
        if not lib.jitbench_count_have_callgrind():
            raise CountError("the counting library was built without <valgrind/callgrind.h> (Debian: apt install "
                             "valgrind, then rebuild)")
        if not lib.jitbench_count_on_valgrind():
            raise CountError("asked to count under valgrind, but this process does not run under valgrind")
        self._lib, self.marks = lib, []

    def mark(self, name):
        self._lib.jitbench_count_dump(name.encode())
        self.marks.append(name)

    def report(self):
        return {"source": self.source, "marks": list(self.marks)}


class HardwareCounter:
    source = "hardware"

    def __init__(self, lib):
        rc = lib.jitbench_count_hw_open()
        if rc != 0:
            raise CountError(f"perf_event_open (user-space instructions) failed: {os.strerror(-rc)}")
        self._lib, self.marks, self.segments = lib, [], []
        self._last = self._read()

    def _read(self):
        v = self._lib.jitbench_count_hw_read()
        if v < 0:
            raise CountError("the hardware instruction counter could not be read")
        return v

    def mark(self, name):
        now = self._read()
        self.segments.append([name, now - self._last])
        self.marks.append(name)
        self._last = self._read()  # the mark's own bookkeeping stays out of the next segment

    def report(self):
        return {"source": self.source, "marks": list(self.marks), "segments": [list(s) for s in self.segments],
                "scope": "the worker's main thread (perf_event_open on the calling thread, user space)",
                "fake": os.environ.get("JITBENCH_TEST_FAKE_PMU") == "1"}


def open_counter(source):
    """The counter jitbench asked for (--count-source)."""
    lib = _library()
    if source == "valgrind":
        return ValgrindCounter(lib)
    if source == "hardware":
        return HardwareCounter(lib)
    raise CountError(f"unknown count source {source!r} (valgrind, hardware)")
