#!/usr/bin/env bash
# Idempotent set-up on a fresh Debian 12 machine (or CI): what `jitbench run`
# needs and nothing more -- Debian packages, valijson's headers, the Python
# virtual environment with the pinned backends, and the build of jitbench and
# its native workers. Safe to run again: each step is skipped when already done.
#
#   scripts/setup.sh                 # for `build/jitbench run` (the README's first command)
#   scripts/setup.sh --for-tests     # adds what only the tests need (scripts/test.sh passes it):
#                                    # Chromium, GoogleTest, ccache, pytest & co, the unit tests,
#                                    # the fuzzer, and the CUDA worker wherever nvcc is
#   scripts/setup.sh --quick-tests   # what the quick tier needs (scripts/test.sh --quick): GoogleTest,
#                                    # ccache, pytest & co; builds jitbench, its unit tests and the
#                                    # native worker only, in the build tree the full tests use
#   scripts/setup.sh --with-slurm    # adds a single-node Slurm cluster's packages (scripts/slurm/)
#   scripts/setup.sh --with-tensorflow  # adds TensorFlow (1.3 GB; no part of the default suite)
#   scripts/setup.sh --with-torch    # adds torch and Triton (several GB; also JITBENCH_WITH_TORCH=1)
#
# The CUDA floor (native_cuda) is built by plain set-up only where nvidia-smi
# lists a GPU, for that GPU's architecture alone (JITBENCH_WITH_CUDA=1 builds it
# for the default architectures anyway).
set -euo pipefail
cd "$(dirname "$0")/.."

# ssh-keygen (openssh-client): `jitbench sign` / `verify`, part of the weekly publishing loop.
APT_PACKAGES=(cmake g++ make pkg-config python3 python3-venv openssh-client
  nlohmann-json3-dev libcli11-dev libtomlplusplus-dev libfmt-dev libssl-dev)
REQ_FILES=(requirements/cpu.txt)
FOR_TESTS=0
QUICK=0
for arg in "$@"; do
  case $arg in
    --for-tests) FOR_TESTS=1 ;;
    --quick-tests) FOR_TESTS=1 QUICK=1 ;;
    --with-slurm) APT_PACKAGES+=(munge slurmctld slurmd slurm-client) ;;
    --with-tensorflow) REQ_FILES+=(requirements/tensorflow.txt) ;;
    --with-torch) JITBENCH_WITH_TORCH=1 ;;
    *) echo "setup: unknown option '$arg' (known: --for-tests, --quick-tests, --with-slurm, --with-tensorflow, --with-torch)" >&2; exit 2 ;;
  esac
done
if [ $FOR_TESTS = 1 ]; then
  # The C++ unit tests; ccache: a contributor's rebuilds (CMakeLists.txt).
  APT_PACKAGES+=(libgtest-dev ccache)
  REQ_FILES+=(requirements/test.txt)
fi
if [ $FOR_TESTS = 1 ] && [ $QUICK = 0 ]; then
  # the report and site tests in a real browser (Chromium), TensorFlow's.
  # patchelf: scripts/gpu-pack.sh (tests/test_gpu_verify.py packs for a GPU machine).
  APT_PACKAGES+=(chromium patchelf)
  REQ_FILES+=(requirements/tensorflow.txt)
fi
# torch (+ Triton) is optional: several GB of CUDA wheels even without a GPU.
if [ "${JITBENCH_WITH_TORCH:-0}" = 1 ]; then REQ_FILES+=(requirements/torch.txt); fi

log() { printf 'setup: %s\n' "$*" >&2; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# valijson is header-only, but its Debian package depends on ~100 packages
# (Qt5, Poco, ...) that jitbench never uses: unpack only its headers.
if [ ! -f .deps/valijson/usr/include/valijson/validator.hpp ] && [ ! -f /usr/include/valijson/validator.hpp ]; then
  log "unpacking valijson headers into .deps/"
  tmp=$(mktemp -d)
  ( cd "$tmp" && apt-get download libvalijson-dev >/dev/null 2>&1 ) || {
    as_root apt-get update -qq; ( cd "$tmp" && apt-get download libvalijson-dev >/dev/null 2>&1 ); }
  mkdir -p .deps/valijson
  dpkg-deb -x "$tmp"/libvalijson-dev_*.deb .deps/valijson
  rm -rf "$tmp"
fi

# The Python environment whose frameworks are benchmarked. A stamp of each
# requirement file's hash avoids reinstalling what did not change. pip waits
# on the network most of the time, so it runs beside the build below.
PY=${JITBENCH_BOOTSTRAP_PYTHON:-python3}
stamp() { echo ".venv/.jitbench-req-$(basename "$1" .txt)"; }
todo=()
for f in "${REQ_FILES[@]}"; do
  [ -x .venv/bin/python ] && [ "$(cat "$(stamp "$f")" 2>/dev/null)" = "$(sha256sum < "$f" | cut -c1-16)" ] || todo+=("$f")
done
pip_pid=
if [ ${#todo[@]} -gt 0 ]; then
  log "installing ${todo[*]} into .venv ($($PY --version)), beside the build"
  (
    start=$SECONDS
    [ -x .venv/bin/python ] || { "$PY" -m venv .venv && .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip; }
    # Every file at once: pip resolves them together (test.txt must not move a pinned backend).
    # Niced: pip mostly waits on the network and byte-compiles; the build beside it is the longer step.
    nice -n 10 .venv/bin/python -m pip install -q --disable-pip-version-check "${REQ_FILES[@]/#/-r}"
    for f in "${REQ_FILES[@]}"; do sha256sum < "$f" | cut -c1-16 > "$(stamp "$f")"; done
    log "done: .venv in $((SECONDS - start)) s"
  ) &
  pip_pid=$!
  # A failed build leaves no pip behind it.
  trap '[ -z "$pip_pid" ] || { pkill -P "$pip_pid"; kill "$pip_pid"; } 2>/dev/null' EXIT
fi

# The build: jitbench and the CPU floor; the tests' targets with --for-tests.
# Release without debug information (debug information made the compiles a
# third longer), jitbench's own code at -O1 (CMakeLists.txt; the native workers
# are -O3 whatever the build type); a build from nothing compiles 40 files a
# batch, a contributor's tree (--for-tests, --quick-tests) 10, so that a change
# to one file rebuilds a quarter as much (README, "Set-up time").
cuda=OFF
archs=()
if gpu=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1) && [ -n "$gpu" ]; then
  cuda=ON
  archs=(-DCMAKE_CUDA_ARCHITECTURES="${gpu/./}-real")  # this machine's GPU: machine code, no PTX to JIT
elif [ "${JITBENCH_WITH_CUDA:-0}" = 1 ]; then
  cuda=ON  # every default architecture (CMakeLists.txt)
elif [ $FOR_TESTS = 1 ]; then
  # Without a GPU the tests need the worker built, not machine code for every
  # GPU: one architecture (scripts/gpu-pack.sh builds its own for a GPU machine).
  cuda=ON
  archs=(-DCMAKE_CUDA_ARCHITECTURES=90-real)
fi
tests=$([ $FOR_TESTS = 1 ] && echo ON || echo OFF)
log "building (build/: tests $tests, CUDA worker $cuda)"
start=$SECONDS
batch=$([ $FOR_TESTS = 1 ] && echo 10 || echo 40)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DJITBENCH_UNITY_BATCH="$batch" \
  -DJITBENCH_TESTS="$tests" -DJITBENCH_CUDA="$cuda" "${archs[@]}" >/dev/null
# The quick tier builds what it runs, in the same tree (no reconfiguring between the tiers).
targets=()
if [ $QUICK = 1 ]; then targets=(--target jitbench jitbench_tests jitbench-native-worker); fi
cmake --build build -j"$(nproc)" "${targets[@]}" >/dev/null
log "done: build in $((SECONDS - start)) s"
if [ -n "$pip_pid" ]; then
  pid=$pip_pid; pip_pid=
  wait "$pid" || { log "installing ${todo[*]} into .venv failed (pip's message above); run scripts/setup.sh again"; exit 1; }
fi
# The Python API and pytest plugin (python/: `import jitbench`, the pytest11
# entry point), editable and offline; again only when .venv's jitbench is not this tree's.
if ! .venv/bin/python -c 'import pathlib, sys, jitbench; sys.exit(pathlib.Path(jitbench.__file__).parent.resolve() != pathlib.Path("python/jitbench").resolve())' 2>/dev/null; then
  log "installing python/ (the jitbench package, editable) into .venv"
  .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e python
fi
log "ready: build/jitbench"
