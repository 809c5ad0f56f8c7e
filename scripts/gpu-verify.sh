#!/usr/bin/env bash
# Proves jitbench's GPU half on a lent GPU machine, one part per call, with the
# folder scripts/gpu-pack.sh made (.gpu/) carried along: nothing is built
# there. Run from the repository root (docs/gpu.md has the recipe):
#
#   scripts/gpu-verify.sh list        # the parts, in the order that proves the most first
#   scripts/gpu-verify.sh plan        # each part's cases (`jitbench plan`; no GPU needed)
#   scripts/gpu-verify.sh PART        # a, b1, b2, b3, c1, c2, c3, d1, d2, d3
#
# Each part runs its steps under one time budget (GPU_VERIFY_BUDGET_S, default
# 480 s, inside a lent machine's 10 minutes a command); a step cut short keeps what
# it measured, and calling the same part again resumes it (`run --resume`). The
# runs are kept in gpu-verify-runs/PART (GPU_VERIFY_RUNS), beside the pack, not in
# it. A step that finished is not run again, even with warn cases: remove
# gpu-verify-runs/PART to measure the part afresh.
# Every call ends by packing the part's out dirs (without cache/), logs and a
# one-page verdict into $DEST/gpu-PART.tar.gz (at most 16 MiB) and writing the
# verdict beside it as $DEST/verdict-PART.md; DEST is GPU_VERIFY_OUT, else $OUT
# (where a lent machine's runner collects the files that come back), else gpu-verify-out/.
#
# Exit codes: 0 every check of the part passed; 1 a check failed (the verdict
# says which and why); 2 usage; 3 no GPU here, nothing was run; 4 out of time,
# call the part again to resume it; 5 the tarball is over 16 MiB even without
# the per-process logs (kept, with the verdict beside it).
#
# Test-only: with JITBENCH_TEST_GPU_ON_CPU=1 (and a stand-in nvidia-smi on PATH)
# the GPU backends that have a CPU twin run its code on the CPU (Triton, which
# has none, runs as it would without a GPU), the runs record it and
# can never be published; GPU_VERIFY_RUN_ARGS adds options to every `jitbench
# run` (tests/test_gpu_verify.py makes the parts small with it).
set -uo pipefail
cd "$(dirname "$0")/.."
PACK=${JITBENCH_GPU_PACK:-.gpu}
DEST=${GPU_VERIFY_OUT:-${OUT:-gpu-verify-out}}
BUDGET=${GPU_VERIFY_BUDGET_S:-480}
case $BUDGET in ''|*[!0-9]*) printf 'gpu-verify: GPU_VERIFY_BUDGET_S=%s: give whole seconds (default 480)\n' "$BUDGET" >&2; exit 2 ;; esac
read -r -a EXTRA <<<"${GPU_VERIFY_RUN_ARGS:-}"
SEED_COLD_RUNS=${GPU_VERIFY_SEED_COLD_RUNS:-5}
GPU_BACKENDS_FLOORS=native_cuda,jax_jit_gpu,torch_compile_gpu,triton

# name|what|steps (space-separated; each step is kind:name[:args with + for spaces])
PARTS=(
  "a|driver and devices, gpu-smoke, the seed's headline jax_jit_gpu matmul 512/1024 at both precisions, the seed's suite.py on them|devices:devices run:gpu-smoke:--suite+suites/gpu-smoke.toml run:headline:--suite+suites/gpu-headline.toml seed:seed"
  "b1|suites/gpu.toml at --precision default, shard 1 of 3|run:gpu-default-1:--suite+suites/gpu.toml+--precision+default+--shard+1/3"
  "b2|suites/gpu.toml at --precision default, shard 2 of 3|run:gpu-default-2:--suite+suites/gpu.toml+--precision+default+--shard+2/3"
  "b3|suites/gpu.toml at --precision default, shard 3 of 3|run:gpu-default-3:--suite+suites/gpu.toml+--precision+default+--shard+3/3"
  "c1|suites/gpu.toml at --precision highest, shard 1 of 3|run:gpu-highest-1:--suite+suites/gpu.toml+--precision+highest+--shard+1/3"
  "c2|suites/gpu.toml at --precision highest, shard 2 of 3|run:gpu-highest-2:--suite+suites/gpu.toml+--precision+highest+--shard+2/3"
  "c3|suites/gpu.toml at --precision highest, shard 3 of 3|run:gpu-highest-3:--suite+suites/gpu.toml+--precision+highest+--shard+3/3"
  "d1|floors.toml's GPU cases with --ceilings on, and the GPU half of tests/test_gpu.py|run:floors-gpu:--suite+suites/floors.toml+--backends+$GPU_BACKENDS_FLOORS+--ceilings+on pytest:test_gpu"
  "d2|suites/loops-gpu.toml, shard 1 of 2|run:loops-gpu-1:--suite+suites/loops-gpu.toml+--shard+1/2"
  "d3|suites/loops-gpu.toml, shard 2 of 2|run:loops-gpu-2:--suite+suites/loops-gpu.toml+--shard+2/2"
)

say() { printf 'gpu-verify: %s\n' "$*" >&2; }
usage() { say "usage: scripts/gpu-verify.sh PART, with PART one of: $(for p in "${PARTS[@]}"; do printf '%s ' "${p%%|*}"; done)(or list)"; exit 2; }

[ $# -eq 1 ] || usage
PART=$1
if [ "$PART" = list ]; then
  for p in "${PARTS[@]}"; do IFS='|' read -r name what _ <<<"$p"; printf '%-3s %s\n' "$name" "$what"; done
  exit 0
fi
# plan: what every part's runs would measure (`jitbench plan`, no GPU needed), one
# line per case: PART STEP CASE. JB: the packed jitbench, else build/jitbench.
if [ "$PART" = plan ]; then
  JB=$PACK/bin/jitbench; [ -x "$JB" ] || JB=build/jitbench
  for p in "${PARTS[@]}"; do
    IFS='|' read -r name _ steps <<<"$p"
    for step in $steps; do
      IFS=: read -r kind sname args <<<"$step"
      [ "$kind" = run ] || continue
      read -r -a argv <<<"${args//+/ }"
      planned=()  # `plan` takes the selection, not --ceilings
      for ((i = 0; i < ${#argv[@]}; i++)); do
        if [ "${argv[i]}" = --ceilings ]; then i=$((i + 1)); else planned+=("${argv[i]}"); fi
      done
      out=$("$JB" plan "${planned[@]}" 2>&1) || { echo "$out" >&2; exit 1; }
      awk -v p="$name" -v s="$sname" '!/^#/ {print p, s, $1}' <<<"$out"
    done
  done
  exit 0
fi
STEPS=
for p in "${PARTS[@]}"; do IFS='|' read -r name what steps <<<"$p"; [ "$name" = "$PART" ] && STEPS=$steps && WHAT=$what; done
[ -n "$STEPS" ] || usage

# No GPU: say so and run nothing.
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1 || [ -z "$(nvidia-smi -L 2>/dev/null)" ]; then
  say "no GPU: nvidia-smi is missing or lists none; nothing was run (part $PART needs a GPU machine: docs/gpu.md)"
  exit 3
fi
for f in bin/jitbench bin/jitbench-native-worker worker/jitbench_worker/__init__.py figures/jitbench_figures/__init__.py; do
  [ -e "$PACK/$f" ] || { say "$PACK/$f is missing: run scripts/gpu-pack.sh first and send $PACK with the checkout (docs/gpu.md)"; exit 2; }
done

PACK=$(cd "$PACK" && pwd)
JB=$PACK/bin/jitbench
export JITBENCH_WORKER_DIR=$PACK/worker JITBENCH_FIGURES_DIR=$PACK/figures
export JITBENCH_NATIVE_WORKER=$PACK/bin/jitbench-native-worker JITBENCH_NATIVE_CUDA_WORKER=$PACK/bin/jitbench-native-cuda-worker
export JITBENCH_PYTHON=${JITBENCH_PYTHON:-$(command -v python3)}
PY=$JITBENCH_PYTHON
export PYTHONUNBUFFERED=1
# cuBLAS for the native_cuda worker: the toolkit's, else the one a pip package (torch's) brought.
if [ -z "${JITBENCH_CUBLAS:-}" ] && ! ldconfig -p 2>/dev/null | grep -q 'libcublas\.so\.'; then
  # nvidia/cublas/lib (CUDA 12 wheels) or nvidia/cu13/lib (CUDA 13 wheels), lib or lib64.
  cublas=$("$PY" -c 'import glob, nvidia
print(sorted(f for p in nvidia.__path__ for f in glob.glob(p + "/*/lib*/libcublas.so.*"))[0])' 2>/dev/null) &&
    [ -n "$cublas" ] && export JITBENCH_CUBLAS=$cublas
fi

# The runs live beside the pack, never in it: a pack sent again (or made again)
# replaces its folder, and the runs must survive that to be resumed.
RUNS=${GPU_VERIFY_RUNS:-gpu-verify-runs}
WORK=$RUNS/$PART
mkdir -p "$WORK/steps" "$WORK/logs" && WORK=$(cd "$WORK" && pwd) ||
  { say "cannot create $WORK: set GPU_VERIFY_RUNS to a writable folder"; exit 2; }
mkdir -p "$DEST" 2>/dev/null && [ -w "$DEST" ] ||
  { say "cannot write to '$DEST': set GPU_VERIFY_OUT to a writable folder"; exit 2; }
# Runs made with the test-only switch and runs made without never meet in one part.
switch=${JITBENCH_TEST_GPU_ON_CPU:-}
[ "$switch" = 1 ] || switch=0
if [ -f "$WORK/switch" ] && [ "$(cat "$WORK/switch")" != "$switch" ]; then
  say "$WORK holds runs made $( [ "$switch" = 1 ] && echo without || echo with ) the test-only switch JITBENCH_TEST_GPU_ON_CPU=1: move it away first"
  exit 2
fi
echo "$switch" >"$WORK/switch"
START=$(date +%s)
DEADLINE=$((START + BUDGET))
OUT_OF_TIME=0

# record NAME KIND RC SECONDS VALIDATE_RC COMMAND...
record() {
  local name=$1 kind=$2 rc=$3 secs=$4 vrc=$5; shift 5
  "$PY" - "$WORK/steps/$name.json" "$name" "$kind" "$rc" "$secs" "$vrc" "$*" <<'EOF'
import json, sys
path, name, kind, rc, secs, vrc, cmd = sys.argv[1:]
json.dump({"name": name, "kind": kind, "rc": int(rc), "seconds": int(secs),
           "validate_rc": None if vrc == "" else int(vrc), "command": cmd}, open(path, "w"), indent=1)
EOF
}

# bounded SECONDS CMD...: CMD in a process group of its own (timeout's), sent
# TERM when the budget ends (KILL 30 s later) or when this script is stopped
# with TERM or INT; jitbench keeps what it measured. Exit 124 or 137: out of time.
CHILD=
trap 'if [ -n "$CHILD" ]; then kill -TERM -- "-$CHILD" 2>/dev/null; wait "$CHILD"; fi; exit 143' TERM INT
bounded() {
  local left=$1 rc
  shift
  timeout --kill-after=30 "$left" "$@" </dev/null &
  CHILD=$!
  wait "$CHILD"
  rc=$?
  CHILD=
  case $rc in 124|137) OUT_OF_TIME=1 ;; esac
  return $rc
}

# remaining seconds, or 0 when fewer than 20 are left (no step starts then)
remaining() { local left=$((DEADLINE - $(date +%s))); [ $left -ge 20 ] && echo $left || echo 0; }

# A step that ended well needs no time: it is not run again.
step_done() {
  local rec=$WORK/steps/$1.json
  [ -f "$rec" ] && grep -q '"rc": 0' "$rec" || return 1
  [ "$2" != run ] || "$PY" -c 'import json, sys; sys.exit(not json.load(open(sys.argv[1]))["complete"])' \
    "$WORK/$1/index.json" 2>/dev/null
}

run_step() {
  local kind=$1 name=$2 args=$3 left t0 rc vrc=
  step_done "$name" "$kind" && return
  left=$(remaining)
  if [ "$left" = 0 ]; then OUT_OF_TIME=1; return; fi
  t0=$(date +%s)
  case $kind in
    devices)
      # The step fails when the GPU list or the frameworks' versions cannot be read;
      # nvidia-smi's full report is kept for the reader.
      { echo "# nvidia-smi"; nvidia-smi; echo; echo "# nvidia-smi -q"; nvidia-smi -q; echo; } >"$WORK/logs/devices.txt" 2>&1
      rc=0
      { echo "# nvidia-smi -L"; nvidia-smi -L && [ -n "$(nvidia-smi -L)" ]; } >>"$WORK/logs/devices.txt" 2>&1 || rc=1
      { echo; echo "# frameworks ($PY)";
        "$PY" -c 'import importlib.metadata as m
for d in ["jax", "jaxlib", "jax-cuda13-plugin", "jax-cuda12-plugin", "torch", "triton", "numba", "numba-cuda", "tensorflow", "numpy", "cupy-cuda13x"]:
    try: print(d, m.version(d))
    except Exception: print(d, "not installed")'
      } >>"$WORK/logs/devices.txt" 2>&1 || rc=1
      { echo; echo "# packed"; cat "$PACK/PACKED"; } >>"$WORK/logs/devices.txt" 2>&1
      record "$name" devices "$rc" $(( $(date +%s) - t0 )) "" "nvidia-smi; nvidia-smi -q; framework versions" ;;
    run)
      local dir=$WORK/$name cmd
      read -r -a argv <<<"${args//+/ }"
      if [ -f "$dir/index.json" ]; then cmd=("$JB" run --resume "$dir" --quiet)
      else cmd=("$JB" run "${argv[@]}" "${EXTRA[@]}" --out-dir "$dir"); fi
      say "$name: ${cmd[*]}"
      bounded "$left" "${cmd[@]}" >>"$WORK/logs/$name.log" 2>&1
      rc=$?
      "$JB" validate "$dir" >>"$WORK/logs/$name.log" 2>&1
      vrc=$?
      record "$name" run "$rc" $(( $(date +%s) - t0 )) "$vrc" "jitbench run ${argv[*]} ${EXTRA[*]}" ;;
    seed)
      if [ ! -f "$PACK/seed/suites/ml/suite.py" ]; then
        echo "the seed harness was not packed (scripts/gpu-pack.sh --seed-harness DIR)" >"$WORK/logs/$name.log"
        record "$name" seed 127 0 "" "seed suites/ml/suite.py: not packed"; return
      fi
      rm -rf "$WORK/$name"
      local seed=("$PY" "$PACK/seed/suites/ml/suite.py" --out-dir "$WORK/$name" --backends jax_jit_gpu
                  --cases matmul_512_f32,matmul_1024_f32 --cold-runs "$SEED_COLD_RUNS" --warm-iters 30)
      say "$name: ${seed[*]}"
      bounded "$left" "${seed[@]}" >"$WORK/logs/$name.log" 2>&1
      rc=$?
      record "$name" seed "$rc" $(( $(date +%s) - t0 )) "" "python3 suites/ml/suite.py ${seed[*]:3}" ;;
    pytest)
      local site=$PACK/site
      if ! "$PY" -c 'import jsonschema' 2>/dev/null && [ ! -d "$site" ]; then
        "$PY" -m pip install -q --no-index --no-deps --no-compile --target "$site" "$PACK"/wheels/*.whl \
          >"$WORK/logs/$name-wheels.log" 2>&1 || say "installing the packed wheels failed (logs/$name-wheels.log)"
      fi
      say "$name: pytest tests/test_gpu.py"
      PYTHONPATH=$site${PYTHONPATH:+:$PYTHONPATH} JITBENCH_BIN=$JB \
        bounded "$left" "$PY" -m pytest -q -p no:cacheprovider tests/test_gpu.py >"$WORK/logs/$name.log" 2>&1
      rc=$?
      record "$name" pytest "$rc" $(( $(date +%s) - t0 )) "" "pytest -q tests/test_gpu.py" ;;
  esac
}

say "part $PART: $WHAT (budget ${BUDGET} s) -> $DEST/gpu-$PART.tar.gz"
for step in $STEPS; do
  IFS=: read -r kind name args <<<"$step"
  run_step "$kind" "$name" "$args"
  [ $OUT_OF_TIME = 1 ] && { say "out of time after step $name: call 'scripts/gpu-verify.sh $PART' again to resume"; break; }
done

"$PY" scripts/gpu_verdict.py "$WORK" "$PART" "$WHAT" "$STEPS" "$OUT_OF_TIME" >"$WORK/verdict.md"
verdict_rc=$?
cp "$WORK/verdict.md" "$DEST/verdict-$PART.md" || { say "could not write $DEST/verdict-$PART.md"; exit 2; }
tarball=$DEST/gpu-$PART.tar.gz
tar --exclude="$PART/*/cache" --exclude="$PART/*/_cache" -czf "$tarball" -C "$RUNS" "$PART" ||
  { say "could not write $tarball"; exit 2; }
if [ "$(stat -c %s "$tarball")" -gt $((16 * 1024 * 1024)) ]; then
  say "the tarball is over 16 MiB: packing it again without the workers' per-process logs"
  tar --exclude="$PART/*/cache" --exclude="$PART/*/_cache" --exclude="$PART/*/logs" -czf "$tarball" -C "$RUNS" "$PART" ||
    { say "could not write $tarball"; exit 2; }
fi
say "$(head -1 "$WORK/verdict.md") -> $tarball ($(du -h "$tarball" | cut -f1))"
cat "$WORK/verdict.md"
if [ "$(stat -c %s "$tarball")" -gt $((16 * 1024 * 1024)) ]; then
  say "$tarball is still over 16 MiB: it may not come back whole; verdict-$PART.md is small and does"
  exit 5
fi
[ $OUT_OF_TIME = 1 ] && exit 4
exit $verdict_rc
