"""jitbench from Python: what JIT compilation costs your own function.

    import jitbench
    r = jitbench.measure(train_step, inputs=make_batch)   # `jitbench measure` underneath
    r.ttfr.median, r.compile.median, r.warm_call.ci, r.phases, r.n_star
    jitbench.load("jitbench-out/run-...")                  # any run dir `jitbench validate` accepts
    jitbench.compare(base, new, fail_on_regression=10)     # `jitbench compare`

The binary: $JITBENCH_BIN, else `jitbench` on PATH, else the source tree's
build/jitbench. The pytest plugin (jitbench.pytest_plugin) gives tests a
`jitbench` fixture with the same measure().
"""

from ._binary import JitbenchError, find_binary
from ._version import __version__
from ._refs import resolve
from .api import CompareRow, Comparison, compare, measure, run_workload
from .result import Case, InvalidRun, Metric, Result, load

__all__ = ["__version__", "Case", "CompareRow", "Comparison", "InvalidRun", "JitbenchError", "Metric", "Result", "compare", "find_binary", "load",
           "measure", "resolve", "run_workload"]
