#!/usr/bin/env bash
# Sets up what is needed, then runs every test: the C++ unit tests and the
# parser fuzzer (ctest), the same again built with AddressSanitizer and
# UndefinedBehaviorSanitizer, and the end-to-end tests of the real binary with
# real and fake workers (pytest), including a suite run as a job array on a
# single-node Slurm cluster.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --for-tests --with-slurm
# The Slurm test must run here, not skip: it starts the packages just installed.
export JITBENCH_REQUIRE_SLURM=1
(cd build && ctest --output-on-failure -j2)
# The sanitizer tree: unit tests and fuzzer only (the binary the e2e tests run
# is the normal build). Debug: quicker to compile, and no optimisation hides a report.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DJITBENCH_SANITIZE=ON -DJITBENCH_FUZZ_SECONDS=45 >/dev/null
cmake --build build-asan -j"$(nproc)" --target jitbench_tests jitbench_fuzz >/dev/null
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j2)
# The environments' tests install with --no-index: numpy's wheel (what every
# environment needs) comes from here, fetched once; so do the build backend
# (scikit-build-core and its dependencies) and uv for the `pip install` test.
ls .deps/wheels/numpy-*.whl >/dev/null 2>&1 ||
  .venv/bin/python -m pip download -q --disable-pip-version-check --only-binary=:all: --no-deps \
    "$(grep -o '^numpy==[^ ]*' requirements/cpu.txt)" -d .deps/wheels
ls .deps/wheels/scikit_build_core-*.whl .deps/wheels/uv-*.whl >/dev/null 2>&1 ||
  .venv/bin/python -m pip download -q --disable-pip-version-check --only-binary=:all: \
    "$(grep -o 'scikit-build-core==[0-9.]*' pyproject.toml)" "$(grep -o '^uv==[^ ]*' requirements/cpu.txt)" \
    -d .deps/wheels
.venv/bin/python -m pytest -q tests
