#!/usr/bin/env bash
# Fixed counts against --target-ci on the default suite (docs/results-sampling.md):
#   1. fixed    the default: 5 cold runs + 1 warm process of 30 calls per case
#   2. ci10     --target-ci 10
#   3. ci5      --target-ci 5
#   4. fixedN   fixed counts large enough to give every case what ci5 reached:
#               --cold-runs / --warm-runs = the most samples any ok case of ci5
#               needed (a fixed count cannot know in advance which case needs it)
# One build, one machine, one after another (after a short warm-up run), so the
# wall times are comparable as ratios. Prints a Markdown report.
#
#   bench/sampling.sh WORK_DIR [--skip-fixed-n]
#
# Given a WORK_DIR of an earlier, unfinished invocation, it goes on: a step
# with a wall time in WORK_DIR/wall.txt is kept, an interrupted one is moved
# aside (NAME.interrupted-<time>) and run again. Each run's index.json names
# the jitbench commit it was made with.
set -euo pipefail
cd "$(dirname "$0")/.."
J=${JITBENCH:-$PWD/build/jitbench}
W=${1:?usage: bench/sampling.sh WORK_DIR [--skip-fixed-n]}
if [ -e "$W" ] && [ ! -f "$W/wall.txt" ]; then
  echo "sampling: $W exists and is no earlier bench/sampling.sh directory; give a new one" >&2; exit 2
fi
mkdir -p "$W"
timed() {  # name, then jitbench run's arguments
  local name=$1 t0
  shift
  if grep -q "^$name " "$W/wall.txt" 2>/dev/null; then return; fi  # measured by an earlier invocation
  if [ -e "$W/$name" ]; then mv "$W/$name" "$W/$name.interrupted-$(date +%s)"; fi
  t0=$(date +%s.%N)
  "$J" run --quiet --out-dir "$W/$name" "$@" > "$W/$name.log" 2>&1 || true
  echo "$name $(echo "$(date +%s.%N) - $t0" | bc)" >> "$W/wall.txt"
}
rm -rf "$W/warmup"
"$J" run --quiet --out-dir "$W/warmup" --cases matmul_512_f32 --cold-runs 1 --warm-iters 1 >/dev/null 2>&1 || true
timed fixed
timed ci10 --target-ci 10
timed ci5 --target-ci 5
if [ "${2:-}" != --skip-fixed-n ]; then
  read -r nc nw < <(.venv/bin/python - "$W/ci5" <<'EOF'
import json, pathlib, sys
cases = [json.loads(p.read_text()) for p in pathlib.Path(sys.argv[1], "cases").glob("*.json")]
ok = [c for c in cases if c["status"] == "ok"]
print(max(c["sampling"]["cold"]["samples"] for c in ok), max(c["sampling"]["warm"]["samples"] for c in ok))
EOF
)
  timed fixedN --cold-runs "$nc" --warm-runs "$nw"
fi
.venv/bin/python bench/sampling_report.py "$W"
