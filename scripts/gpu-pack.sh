#!/usr/bin/env bash
# Gathers, into one ignored folder (.gpu/ by default), everything a lent GPU
# machine needs to run scripts/gpu-verify.sh there without building anything
# and without a package registry (docs/gpu.md):
#   bin/       jitbench, the native CPU worker (for x86-64-v3, not this CPU) and
#              the native_cuda worker (sm_90: H100, H200; sm_100: B200), stripped, each
#              with an RPATH to lib/ (no LD_LIBRARY_PATH, which the Python
#              workers would inherit)
#   lib/       the shared libraries they link that such an image may lack
#              (fmt, toml++, OpenSSL's libcrypto, OpenMP) — never the C and C++
#              runtimes, which the image has in newer versions
#   worker/    the worker package (jitbench_worker); figures/ the figures package
#   seed/      the seed harness's suites/ml/suite.py and the run.py it starts
#              (NextStat/nextstat-public-benchmarks), kept out of the repository
#   wheels/    what the tests need that the image lacks, for its Python 3.12:
#              jsonschema and its dependencies (pinned in requirements/gpu-wheels.txt)
#   PACKED     what was packed, from which commit, and how big it is
#
#   scripts/gpu-pack.sh --seed-harness DIR [--out .gpu]
#
# DIR is a checkout of NextStat/nextstat-public-benchmarks (or a folder holding
# suites/ml/suite.py and run.py); without --seed-harness the folder
# .deps/nextstat-public-benchmarks is used when it exists, else part (a) of
# gpu-verify.sh says the seed harness was not packed. Needs scripts/setup.sh's
# build (it builds build/ when missing) and the CUDA toolkit (nvcc).
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=.gpu
SEED=
while [ $# -gt 0 ]; do
  case $1 in
    --out) OUT=${2:?--out needs a folder}; shift 2 ;;
    --seed-harness) SEED=${2:?--seed-harness needs a folder}; shift 2 ;;
    *) echo "gpu-pack: unknown option '$1' (known: --out DIR, --seed-harness DIR)" >&2; exit 2 ;;
  esac
done
log() { printf 'gpu-pack: %s\n' "$*" >&2; }
die() { printf 'gpu-pack: %s\n' "$*" >&2; exit 1; }

if [ -z "$SEED" ] && [ -d .deps/nextstat-public-benchmarks ]; then SEED=.deps/nextstat-public-benchmarks; fi
if [ -n "$SEED" ]; then
  seed_dir=$SEED
  [ -f "$seed_dir/suites/ml/suite.py" ] && seed_dir=$seed_dir/suites/ml
  [ -f "$seed_dir/suite.py" ] && [ -f "$seed_dir/run.py" ] ||
    die "--seed-harness '$SEED' holds no suites/ml/suite.py and run.py: give a checkout of NextStat/nextstat-public-benchmarks"
fi
# Inside the repository the packed folder must be ignored, or it would be
# committed; it is sent to the GPU machine beside the checkout. Elsewhere (a
# test's temporary folder) it need not be.
mkdir -p "$(dirname "$OUT")"
abs_out=$(cd "$(dirname "$OUT")" && pwd)/$(basename "$OUT")
case $abs_out/ in
  "$PWD"/*) git check-ignore -q "$OUT/x" || die "'$OUT' is not ignored by git: add '/$OUT/' to .gitignore or .git/info/exclude" ;;
esac
OUT=$abs_out
# Only a folder this script made (it holds PACKED) is ever replaced.
if [ -e "$OUT" ] && [ ! -f "$OUT/PACKED" ] && [ -n "$(ls -A "$OUT" 2>/dev/null)" ]; then
  die "'$OUT' exists and is not a folder gpu-pack made (no PACKED in it): give a new or empty folder"
fi

NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$NVCC" ] || die "nvcc not found (PATH or /usr/local/cuda/bin): the native_cuda worker needs the CUDA toolkit"
command -v patchelf >/dev/null || {
  log "installing patchelf (sets the binaries' RPATH to lib/)"
  if [ "$(id -u)" = 0 ]; then apt-get install -y -qq patchelf >/dev/null || { apt-get update -qq && apt-get install -y -qq patchelf >/dev/null; }
  else sudo apt-get install -y -qq patchelf >/dev/null; fi
}

[ -x build/jitbench ] || scripts/setup.sh
log "building jitbench (build/, incremental)"
cmake --build build -j"$(nproc)" --target jitbench >/dev/null
# The native workers travel to another CPU: x86-64-v3 (AVX2, FMA), not this one's -march=native.
log "building the native workers: CPU for x86-64-v3, CUDA for sm_90 and sm_100 (build-gpu/)"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DJITBENCH_TESTS=OFF -DCMAKE_CUDA_COMPILER="$NVCC" \
  -DJITBENCH_NATIVE_ARCH=x86-64-v3 -DCMAKE_CUDA_ARCHITECTURES="90-real;100-real" >build-gpu.log 2>&1 ||
  die "configuring build-gpu/ failed (see build-gpu.log)"
cmake --build build-gpu -j"$(nproc)" --target jitbench-native-worker jitbench-native-cuda-worker >>build-gpu.log 2>&1 ||
  die "building the native workers failed (see build-gpu.log)"
rm -f build-gpu.log

STAGE=$(mktemp -d "$OUT.pack-XXXXXX")  # built beside, then moved in one step
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE"/{bin,lib,wheels,seed}
for exe in build/jitbench build-gpu/jitbench-native-worker build-gpu/jitbench-native-cuda-worker; do
  strip -o "$STAGE/bin/$(basename "$exe")" "$exe"
  patchelf --force-rpath --set-rpath '$ORIGIN/../lib' "$STAGE/bin/$(basename "$exe")"
done
# Only the libraries an image of another distribution may lack; the C/C++
# runtimes there are newer than these, and the workers' Python modules need theirs.
for exe in "$STAGE"/bin/*; do
  ldd "$exe" | awk '/=> \// {print $3}'
done | sort -u | grep -E '/lib(fmt|tomlplusplus|crypto|gomp)\.so' | while read -r lib; do cp -L "$lib" "$STAGE/lib/"; done

cp -r worker "$STAGE/worker"
cp -r src/report/figures "$STAGE/figures"
find "$STAGE" -name __pycache__ -prune -exec rm -rf {} +
if [ -n "$SEED" ]; then
  mkdir -p "$STAGE/seed/suites/ml"
  cp "$seed_dir/suite.py" "$seed_dir/run.py" "$STAGE/seed/suites/ml/"
  seed_rev=$(git -C "$SEED" rev-parse HEAD 2>/dev/null || echo "not a git checkout")
else
  seed_rev="not packed (no --seed-harness)"
  log "note: no --seed-harness given: gpu-verify.sh a will say the seed harness was not packed"
fi

log "downloading the tests' wheels for the image's Python 3.12 (requirements/gpu-wheels.txt)"
PYTHON=.venv/bin/python
[ -x "$PYTHON" ] || PYTHON=python3
"$PYTHON" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: --python-version 3.12 \
  --implementation cp --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  -r requirements/gpu-wheels.txt -d "$STAGE/wheels" || die "pip could not download requirements/gpu-wheels.txt"

version=$(build/jitbench --version 2>/dev/null | head -1 || true)
{
  echo "packed_at: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "jitbench: $version"
  echo "source: $(git describe --always --dirty 2>/dev/null || echo unknown)"
  echo "native_cuda: nvcc $("$NVCC" --version | awk '/release/ {print $5 $6}') sm_90 sm_100"
  echo "seed harness: $seed_rev"
  echo "files:"
  (cd "$STAGE" && find . -type f ! -name PACKED | sort | while read -r f; do printf '  %s %s\n' "$(stat -c %s "$f")" "${f#./}"; done)
} >"$STAGE/PACKED.tmp"
mv "$STAGE/PACKED.tmp" "$STAGE/PACKED"
size=$(du -sb "$STAGE" | cut -f1)
# A GPU machine's copy of the checkout is limited in size (64 MiB where this
# was written): the pack must leave room for the working tree beside it.
[ "$size" -lt $((48 * 1024 * 1024)) ] || die "the pack would be $size bytes, over 48 MiB: nothing was replaced"
rm -rf "$OUT"
mv "$STAGE" "$OUT"
echo "gpu-pack: $OUT: $(du -sh "$OUT" | cut -f1) ($size bytes); send it with the checkout and run scripts/gpu-verify.sh there (JITBENCH_GPU_PACK names it when it is not .gpu/; docs/gpu.md)"
