#!/usr/bin/env bash
# The tests, in two tiers (tests/tiers.py):
#
#   scripts/test.sh           every test: the README's test command, which .ci/run calls. Sets up what is
#                             needed, then the C++ unit tests (ctest), the same again with the parser fuzzer
#                             built with AddressSanitizer and UndefinedBehaviorSanitizer, and every end-to-end
#                             test of the real binary with real and fake workers (pytest), including a suite
#                             run as a job array on a single-node Slurm cluster.
#   scripts/test.sh --quick   while working: an incremental build of jitbench and its unit tests (no
#                             sanitizer tree, no fuzzer, no CUDA worker, no wheel), ctest, and the pytest
#                             tests that need nothing beyond numpy (the golden replay through every emitter,
#                             the fake-worker end-to-end runs, the architecture). Extra arguments go to pytest
#                             (`scripts/test.sh --quick -k resume`).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --quick ]; then
  shift
  scripts/setup.sh --quick-tests
  (cd build && ctest --output-on-failure -j2 -E '^fuzz_parsers$')
  # Two at a time, a module's tests on one worker (its module fixtures are made once).
  exec .venv/bin/python -m pytest -q --tier quick -n 2 --dist loadscope --durations=15 tests worker/tests "$@"
fi
if [ $# -gt 0 ]; then
  echo "test.sh: unknown option '$1' (known: --quick; with none, every test)" >&2
  exit 2
fi
scripts/setup.sh --for-tests --with-slurm
# The Slurm test must run here, not skip: it starts the packages just installed.
export JITBENCH_REQUIRE_SLURM=1
# The parser fuzzer runs in the sanitizer tree below (the same corpus and mutations, any report fatal), not here.
(cd build && ctest --output-on-failure -j2 -E '^fuzz_parsers$')
# The sanitizer tree: unit tests and fuzzer only (the binary the e2e tests run
# is the normal build). Debug: quicker to compile, and no optimisation hides a report.
# Batches of 40, as a plain set-up and the wheel compile jitbench's own files (build/ here has 10): names
# two files of one batch both define apart (an anonymous namespace's) fail here, not on a newcomer's machine.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DJITBENCH_SANITIZE=ON -DJITBENCH_CUDA=OFF \
  -DJITBENCH_UNITY_BATCH=40 >/dev/null
cmake --build build-asan -j"$(nproc)" --target jitbench_tests jitbench_fuzz >/dev/null
# The stopping rule's coverage simulation (2,000 sequential runs per population and target) runs in build/
# above (5 s); here, five times slower, it would check the same arithmetic for 25 s.
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j2 -E '^StoppingRule.CoverageHoldsUnderRepeatedLooks$')
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
# tests/test_pip_install.py installs the wheel's `figures` extra and a notebook kernel into a fresh venv,
# offline: their wheels (and their dependencies') come from here too, at the versions .venv pins.
ls .deps/wheels/matplotlib-*.whl .deps/wheels/ipykernel-*.whl >/dev/null 2>&1 ||
  .venv/bin/python -m pip download -q --disable-pip-version-check --only-binary=:all: -d .deps/wheels \
    $(grep -hoE '^(matplotlib|jinja2|markupsafe|dygraphs|ipykernel)==[^ ]*' requirements/cpu.txt requirements/test.txt)
# The slowest tests are printed, so that the budget (README: within 35 minutes) is watched. Two at a
# time, a module's tests on one worker: most of a test's time is a worker process starting or a
# framework importing, so two share the two cores without timing anything (no test asserts a time).
.venv/bin/python -m pytest -q -n 2 --dist loadscope --durations=25 tests worker/tests
