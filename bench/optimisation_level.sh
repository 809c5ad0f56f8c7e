#!/usr/bin/env bash
# What jitbench's own optimisation level costs its users: two builds of the same
# commit (A and B, e.g. -O1 and -O2) timed on the commands whose work is
# jitbench's own (no worker running): `compare` of two runs of the default
# suite (6 cold + 3 warm processes a case: bootstrap intervals, Mann-Whitney),
# `merge` of 4 shards of 200 native cases (reads, checks and analyses every
# case, writes every artifact), and `validate` of a run whose case file holds a
# million warm calls (27 MB of JSON, parsed and checked against its schema).
# The two builds alternate, REPEAT times each; prints each build's own time and
# each command's median CPU seconds (user + sys) per build and B/A. README, "Set-up time", has the numbers.
#
#   bench/optimisation_level.sh [A_LEVEL] [B_LEVEL] [REPEAT=5]
#   e.g. bench/optimisation_level.sh -O1 -O2   (JITBENCH_OPT, CMakeLists.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
A=${1:--O1} B=${2:--O2} repeat=${3:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for side in A B; do
  flags=$([ $side = A ] && echo "$A" || echo "$B")
  cmake -S . -B "$tmp/build-$side" -DCMAKE_BUILD_TYPE=Release -DJITBENCH_OPT="$flags" \
    -DJITBENCH_TESTS=OFF -DJITBENCH_CUDA=OFF -DJITBENCH_CCACHE=OFF >/dev/null
  /usr/bin/time -f "%e %U %S" -o "$tmp/build-$side.time" \
    cmake --build "$tmp/build-$side" -j"$(nproc)" --target jitbench jitbench-native-worker >/dev/null
done
J=$tmp/build-B/jitbench
export JITBENCH_WORKER_DIR=$PWD/tests/fake_worker JITBENCH_PYTHON=${JITBENCH_PYTHON:-$PWD/.venv/bin/python}
for r in r1 r2; do
  "$J" run --cold-runs 6 --warm-runs 3 --warm-iters 30 --out-dir "$tmp/$r" --quiet >/dev/null
done
unset JITBENCH_WORKER_DIR
export JITBENCH_NATIVE_WORKER=$tmp/build-B/jitbench-native-worker
sizes=$(seq -s, 1000 10 1990)
printf '[suite]\nname = "opt-level"\ncold_runs = 1\nwarm_iters = 1\n[[matrix]]\nbackends = ["native"]\nworkloads = ["mc_pi", "null"]\nsizes = [%s]\ndtypes = ["f64"]\n' \
  "$sizes" > "$tmp/many.toml"
for k in 1 2 3 4; do
  "$J" run --suite "$tmp/many.toml" --shard "$k/4" --out-dir "$tmp/s$k" --quiet --ceilings off >/dev/null
done
# One case of a million warm calls, as the writer would write it, its index entry re-hashed.
JITBENCH_WORKER_DIR=$PWD/tests/fake_worker "$J" run --cases matmul_8_f32 --backends numpy --cold-runs 1 \
  --warm-iters 5 --out-dir "$tmp/big" --quiet >/dev/null
"$JITBENCH_PYTHON" - "$tmp/big" <<'PY'
import hashlib, json, pathlib, sys
out = pathlib.Path(sys.argv[1])
path = out / "cases" / "numpy_matmul_8_f32.json"
case = json.loads(path.read_text())
case["warm"]["calls_s"] = case["warm"]["run"]["calls_s"] = [round(0.001 + 1e-9 * (i % 997), 12) for i in range(10**6)]
path.write_text(json.dumps(case, indent=2, sort_keys=True))
index = json.loads((out / "index.json").read_text())
entry = next(f for f in index["files"] if f["path"] == "cases/numpy_matmul_8_f32.json")
entry.update(sha256=hashlib.sha256(path.read_bytes()).hexdigest(), bytes=path.stat().st_size)
(out / "index.json").write_text(json.dumps(index, indent=2, sort_keys=True) + "\n")
PY
cpu() {  # CPU seconds of one command (time's own report to a file: the command's output is dropped)
  local f
  f=$(mktemp)
  /usr/bin/time -f "%U %S" -o "$f" "$@" >/dev/null 2>&1 || true
  awk '{print $1 + $2}' "$f"
  rm -f "$f"
}
: > "$tmp/times"
for i in $(seq "$repeat"); do
  for side in A B; do
    J=$tmp/build-$side/jitbench
    echo "$side compare $(cpu "$J" compare "$tmp/r1" "$tmp/r2")" >> "$tmp/times"
    rm -rf "$tmp/merged"
    echo "$side merge $(cpu "$J" merge "$tmp/merged" "$tmp"/s1 "$tmp"/s2 "$tmp"/s3 "$tmp"/s4)" >> "$tmp/times"
    echo "$side validate $(cpu "$J" validate "$tmp/big")" >> "$tmp/times"
  done
done
echo "A: $A    B: $B    ($repeat runs each, alternating; load $(cut -d' ' -f1-3 /proc/loadavg))"
for side in A B; do
  read -r wall user sys < "$tmp/build-$side.time"
  echo "$side build: $wall s wall, $(echo "$user $sys" | awk '{print $1 + $2}') CPU s"
done
python3 - "$tmp/times" <<'PY'
import statistics, sys
t = {}
for line in open(sys.argv[1]):
    side, cmd, s = line.split()
    t.setdefault(cmd, {}).setdefault(side, []).append(float(s))
print(f"{'command':10} {'A median CPU s':>15} {'B median CPU s':>15} {'B/A':>6}")
for cmd, d in t.items():
    a, b = statistics.median(d["A"]), statistics.median(d["B"])
    print(f"{cmd:10} {a:15.2f} {b:15.2f} {b / a:6.2f}")
PY
