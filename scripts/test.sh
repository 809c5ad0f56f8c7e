#!/usr/bin/env bash
# Sets up what is needed, then runs every test: the C++ unit tests (ctest) and
# the end-to-end tests of the real binary with real and fake workers (pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
(cd build && ctest --output-on-failure -j2)
.venv/bin/python -m pytest -q tests
