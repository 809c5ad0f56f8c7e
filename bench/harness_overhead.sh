#!/usr/bin/env bash
# Harness fidelity: how much does jitbench itself add?
#  1. process wall time of a trivial worker (plain Python, `null` workload) as
#     jitbench measures it (spawn -> reaped) vs `hyperfine -N` on the same command;
#  2. the per-call cost of jitbench's warm loop timing a call that does nothing.
# Prints a Markdown report; the numbers in docs/harness-fidelity.md came from it.
# Usage: bench/harness_overhead.sh [RUNS]   (after scripts/setup.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-40}
PY=.venv/bin/python
command -v hyperfine >/dev/null || { echo "hyperfine is needed: apt-get install hyperfine" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

build/jitbench run --quiet --backends python --cases null_1_f64 --cold-runs "$RUNS" --warm-iters 100000 \
  --out-dir "$tmp/jb" >/dev/null
# The same worker command; hyperfine gives it stdout (/dev/null) as its result channel.
PYTHONPATH=worker hyperfine -N --warmup 3 --runs "$RUNS" --export-json "$tmp/hf.json" \
  "$PY -m jitbench_worker run --fd 1 --mode cold --backend python --workload null --n 1 --dtype f64 --warm-iters 0" \
  >/dev/null

"$PY" - "$tmp/jb/cases/python_null_1_f64.json" "$tmp/hf.json" <<'PYEOF'
import json, statistics, sys
case = json.load(open(sys.argv[1]))
hf = json.load(open(sys.argv[2]))["results"][0]
walls = [r["wall_s"] for r in case["cold"]["runs"] if r["status"] == "ok"]
starts = [r["process_start_s"] for r in case["cold"]["runs"] if r["status"] == "ok"]
calls = case["warm"]["calls_s"]
jb, hfm = statistics.median(walls), statistics.median(hf["times"])
print(f"| measure | median | n |\n|---|---|---|")
print(f"| jitbench: worker wall (spawn → reaped) | {jb*1e3:.2f} ms | {len(walls)} |")
print(f"| hyperfine -N: same command | {hfm*1e3:.2f} ms | {len(hf['times'])} |")
print(f"| ratio jitbench / hyperfine | {jb/hfm:.3f} | |")
print(f"| jitbench: process_start_s (spawn → worker's hello) | {statistics.median(starts)*1e3:.2f} ms | {len(starts)} |")
print(f"| warm loop: one timed null call (perf_counter_ns pair + call) | {statistics.median(calls)*1e9:.0f} ns | {len(calls)} |")
print(f"| warm loop: p95 | {sorted(calls)[int(0.95*(len(calls)-1))]*1e9:.0f} ns | |")
PYEOF
