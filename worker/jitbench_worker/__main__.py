import os
import sys

from .cli import main

code = main(sys.argv[1:])
# The result and bye are written and the channel closed: nothing of the run is
# left but the interpreter's shutdown (module teardown, the frameworks' atexit
# hooks: XLA's and JAX's take ~0.3 s of a JAX process). Every cache a framework
# writes by default is written when it compiles, and jitbench kills the process
# group after each run anyway; so the worker flushes what the benchmarked code
# printed and leaves at once (docs/protocol.md, harness_exit_s).
for stream in (sys.stdout, sys.stderr):
    try:
        stream.flush()
    except Exception:
        pass
# os._exit skips atexit handlers (the measured code's, coverage's), weakref
# finalizers and the flush of files the user code left open; a normal exit
# when asked (JITBENCH_WORKER_CLEAN_EXIT=1) or when coverage measures the
# worker (COVERAGE_PROCESS_START), at the cost of the teardown.
if os.environ.get("JITBENCH_WORKER_CLEAN_EXIT") == "1" or os.environ.get("COVERAGE_PROCESS_START"):
    sys.exit(code)
if "logging" in sys.modules:
    sys.modules["logging"].shutdown()
os._exit(code)
