#!/usr/bin/env bash
# The gate under two CPU hogs (issue 51's "done when"): `compare
# --fail-on-regression 10` on two runs of unchanged code should exit 0 once
# it has re-measured them side by side, and on a real 3x warm slowdown exit 1.
#
#   bench/gate_under_hogs.sh [WORK_DIR]
#
# A numpy function measured with `jitbench measure` (its warm call sums a
# sine over an array; the slow version does it three times). BASE is measured
# with the machine as it is (run it at a quiet moment); then two `yes`
# processes start, each a session of its own, and NEW is measured beside them
# twice, unchanged and 3x slower, and both gates run with the hogs still
# there: first without re-measuring (--no-remeasure: what the gate did
# before), then as it does now. Prints each gate's exit code and the lines
# that explain it; the re-measurements land beside NEW (NEW.remeasure). Needs
# the built binary (build/jitbench, or $JITBENCH) and a Python with numpy
# ($JITBENCH_PYTHON, default .venv/bin/python).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
J=${JITBENCH:-$root/build/jitbench}
export JITBENCH_PYTHON=${JITBENCH_PYTHON:-$root/.venv/bin/python}
work=${1:-$(mktemp -d /tmp/gate-under-hogs.XXXXXX)}
mkdir -p "$work"
counts=(--cold-runs 8 --warm-runs 8 --warm-iters 10)

target() {  # target.py with REPEAT sines per call
  cat > "$work/target.py" <<PY
import numpy as np

REPEAT = $1


def make_inputs():
    return (np.linspace(0.0, 1.0, 400_000),)


def step(x):
    total = 0.0
    for _ in range(REPEAT):
        total += float(np.sin(x).sum())
    return total
PY
}

hogs=()
stop_hogs() { for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap stop_hogs EXIT

target 1
echo "BASE, no hogs; load: $(uptime)"
"$J" measure "$work/target.py:step" "${counts[@]}" --quiet --out-dir "$work/base"
for _ in 1 2; do setsid yes > /dev/null & hogs+=($!); done
sleep 2
echo "two hogs running (pids ${hogs[*]}); load: $(uptime)"
"$J" measure "$work/target.py:step" "${counts[@]}" --quiet --out-dir "$work/same"
target 3
"$J" measure "$work/target.py:step" "${counts[@]}" --quiet --out-dir "$work/slow"

gate() {  # gate NAME NEW [OPTION]: the exit code, and the lines that explain it
  local rc=0
  "$J" compare "$work/base" "$work/$2" --fail-on-regression 10 ${3:-} > "$work/$1.out" 2> "$work/$1.err" || rc=$?
  echo "== $1: compare base $2 --fail-on-regression 10 ${3:-} -> exit $rc"
  grep -E "re-measuring|cannot re-measure|regression:|cleared|confirmed|left to|re-run" "$work/$1.err" || true
  return 0
}
gate unchanged-no-remeasure same --no-remeasure
gate slowdown-no-remeasure slow --no-remeasure
gate unchanged same
gate slowdown slow
echo "load at the end: $(uptime)"
echo "runs and re-measurements in $work"
