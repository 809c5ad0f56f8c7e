"""The worker leaves with os._exit (no interpreter teardown) unless
JITBENCH_WORKER_CLEAN_EXIT=1 asks for a normal exit: then the measured code's
atexit handlers run (docs/protocol.md, harness_exit_s)."""

import pytest

pytestmark = pytest.mark.quick

WORKLOAD = '''
import atexit

MARK = @MARK@
CATALOG = {"sizes": [4], "dtypes": ["f64"]}


def make_inputs(n, dtype, seed):
    return (n,)


def check(out, inputs, n, dtype, seed, ctx=None):
    return {"ok": out == n, "metric": "exact", "error": 0.0, "tolerance": 0.0, "reference": "n"}, {}


def _numpy(adapter, n, dtype):
    atexit.register(lambda: open(MARK, "a").write("ran\\n"))
    return lambda k: k


IMPLEMENTATIONS = {"numpy": _numpy}
'''


def run_with(jitbench, tmp_path, env):
    mark = tmp_path / "atexit_ran"
    path = tmp_path / "exit_probe.py"
    path.write_text(WORKLOAD.replace("@MARK@", repr(str(mark))))
    res = jitbench("run", "--workload-path", str(path), "--backends", "numpy", "--cold-runs", "1",
                   "--warm-iters", "0", env=env)
    assert res.rc == 0, res.stderr
    return mark


def test_clean_exit_runs_the_measured_codes_atexit_handlers(jitbench, tmp_path):
    mark = run_with(jitbench, tmp_path, {"JITBENCH_WORKER_CLEAN_EXIT": "1"})
    assert mark.is_file() and "ran" in mark.read_text()


def test_by_default_the_worker_skips_them(jitbench, tmp_path):
    mark = run_with(jitbench, tmp_path, {"JITBENCH_WORKER_CLEAN_EXIT": "0", "COVERAGE_PROCESS_START": ""})
    assert not mark.exists()
