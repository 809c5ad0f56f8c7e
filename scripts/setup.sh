#!/usr/bin/env bash
# Idempotent set-up on a fresh Debian 12 machine (or CI): Debian packages,
# valijson's headers, the Python virtual environment with pinned backends,
# and the build. Safe to run again: each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

APT_PACKAGES=(cmake g++ make pkg-config python3 python3-venv chromium openssh-client
  nlohmann-json3-dev libcli11-dev libtomlplusplus-dev libfmt-dev libssl-dev libgtest-dev)
# --with-slurm (scripts/test.sh passes it): a single-node Slurm cluster for the
# test of scripts/slurm/ (scripts/slurm/local-cluster.sh starts it).
for arg in "$@"; do
  case $arg in
    --with-slurm) APT_PACKAGES+=(munge slurmctld slurmd slurm-client) ;;
    *) echo "setup: unknown option '$arg' (known: --with-slurm)" >&2; exit 2 ;;
  esac
done

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

# The Python environment whose frameworks are benchmarked. A stamp of the
# requirement files' hash avoids reinstalling when nothing changed.
PY=${JITBENCH_BOOTSTRAP_PYTHON:-python3}
REQ_FILES=(requirements/cpu.txt requirements/test.txt)
# torch (+ Triton) is optional: several GB of CUDA wheels even without a GPU.
if [ "${JITBENCH_WITH_TORCH:-0}" = 1 ]; then REQ_FILES+=(requirements/torch.txt); fi
REQ_HASH=$(cat "${REQ_FILES[@]}" | sha256sum | cut -c1-16)
if [ ! -x .venv/bin/python ] || [ "$(cat .venv/.jitbench-req 2>/dev/null)" != "$REQ_HASH" ]; then
  log "creating .venv with $($PY --version) and ${REQ_FILES[*]}"
  [ -x .venv/bin/python ] || "$PY" -m venv .venv
  .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install -q --disable-pip-version-check "${REQ_FILES[@]/#/-r}"
  echo "$REQ_HASH" > .venv/.jitbench-req
fi

log "building (build/)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
log "ready: build/jitbench"
