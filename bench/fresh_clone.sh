#!/usr/bin/env bash
# Time to the first summary from a fresh clone: the README's first command,
# step by step (Debian packages, valijson, Python environment, build, default
# run), with no pip cache, no .venv, no .deps and no build tree.
#
#   bench/fresh_clone.sh WORK_DIR [REV]
#
# WORK_DIR must not exist; REV (default HEAD) is cloned from this repository.
# Debian packages already installed on this machine are not installed again
# (scripts/setup.sh skips them): the apt step shows only what was missing.
# Prints each line set-up logs at its offset from the start (pip overlaps the
# build; set-up logs each one's own time), then set-up, run and the total.
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:?usage: bench/fresh_clone.sh WORK_DIR [REV]}
REV=${2:-HEAD}
[ ! -e "$W" ] || { echo "fresh_clone: $W exists; give a new directory" >&2; exit 2; }
git clone -q "$PWD" "$W"
git -C "$W" checkout -q --detach "$REV"
cd "$W"
export PIP_NO_CACHE_DIR=1
t0=$(date +%s.%N)
# Every line setup.sh logs ("setup: ...") starts a step; stamp each.
scripts/setup.sh 2>&1 | while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line"; done > setup.log
t1=$(date +%s.%N)
build/jitbench run --quiet --out-dir first-run > run.log 2>&1 || true
t2=$(date +%s.%N)
python3 - "$t0" "$t1" "$t2" setup.log <<'EOF'
import sys
t0, t1, t2 = (float(x) for x in sys.argv[1:4])
# pip runs beside the build, so steps overlap: each line setup.sh logged, at
# its offset from the start; "done: ... in N s" lines give each step's own time.
for line in open(sys.argv[4]):
    stamp, _, text = line.partition(" ")
    if text.startswith("setup: "):
        print(f"{float(stamp) - t0:8.1f} s  {text[7:].strip()[:90]}")
print(f"{t1 - t0:8.1f} s  set-up in all")
print(f"{t2 - t1:8.1f} s  build/jitbench run (default suite)")
print(f"{t2 - t0:8.1f} s  to the first summary")
EOF
tail -n 3 run.log
