#!/usr/bin/env bash
# The pytest plugin's gate under two CPU hogs (issue 51's "done when", as
# bench/gate_under_hogs.sh shows it for `compare`): a session of unchanged
# code compared with `--jitbench-fail-on-regression 10` should pass once the
# gate has re-measured it side by side, and a real 3x warm slowdown should
# fail the test that measured it; both print the table of what was judged.
#
#   bench/plugin_gate_under_hogs.sh [WORK_DIR]
#
# A numpy function (its warm call sums a sine over an array; the slow version,
# in a file of its own, does it three times) measured by a test with the
# `jitbench` fixture: main's session saved with the machine as it is, then two
# `yes` processes started and the pull request's sessions run beside them
# (unchanged code without and with re-measuring, and the slowdown). Prints
# each session's exit code, its outcome line and the plugin's summary. Needs
# the built binary (build/jitbench, or $JITBENCH_BIN) and the project's .venv.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export JITBENCH_BIN=${JITBENCH_BIN:-$root/build/jitbench}
py=${JITBENCH_PYTHON:-$root/.venv/bin/python}
work=${1:-$(mktemp -d /tmp/plugin-gate-under-hogs.XXXXXX)}
mkdir -p "$work"

for repeat in 1 3; do  # target_1.py: one sine per call; target_3.py: three
  cat > "$work/target_$repeat.py" <<PY
import numpy as np


def make_inputs():
    return (np.linspace(0.0, 1.0, 400_000),)


def step(x):
    total = 0.0
    for _ in range($repeat):
        total += float(np.sin(x).sum())
    return total
PY
done
cat > "$work/test_gate.py" <<'PY'
import importlib
import os

target = importlib.import_module(os.environ.get("TARGET", "target_1"))
step, make_inputs = target.step, target.make_inputs


def test_step(jitbench):
    r = jitbench.measure(step, inputs=make_inputs, cold_runs=6, warm_runs=4, extra_args=["--warm-iters", "5"])
    assert r.status == "ok", r.reason
PY

hogs=()
stop_hogs() { for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap stop_hogs EXIT
start_hogs() {
  for _ in 1 2; do setsid yes > /dev/null & hogs+=($!); done
  sleep 2
  echo "two hogs running (pids ${hogs[*]}), each a session of its own; load: $(uptime)"
}

session() {  # session NAME TARGET ARGS...: the exit code, the outcome and the plugin's summary
  local name=$1 target=$2 rc=0
  shift 2
  (cd "$work" && TARGET=$target "$py" -m pytest -q -p no:cacheprovider test_gate.py "$@") > "$work/$name.out" 2>&1 \
    || rc=$?
  echo "== $name: TARGET=$target pytest $* -> exit $rc"
  grep -E "^(=+ )?[0-9]+ (passed|failed)" "$work/$name.out" || true
  sed -n '/=== jitbench ===/,/short test summary\|^=* [0-9]* \(passed\|failed\)/p' "$work/$name.out"
}
echo "saving main's session with the machine as it is (run it at a quiet moment); load: $(uptime)"
session save target_1 --jitbench-save base
start_hogs
session unchanged-no-remeasure target_1 --jitbench-compare base --jitbench-fail-on-regression 10 --no-jitbench-remeasure
session unchanged target_1 --jitbench-compare base --jitbench-fail-on-regression 10
session slowdown target_3 --jitbench-compare base --jitbench-fail-on-regression 10
echo "load at the end: $(uptime)"
echo "sessions in $work/.jitbench and pytest's temporary directories; outputs in $work/*.out"
