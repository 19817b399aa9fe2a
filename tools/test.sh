#!/usr/bin/env bash
# Install what is missing, build sluice with warnings as errors and sanitizers (ASan + UBSan),
# then run every test: the GoogleTest unit tests and the pytest integration tests
# (tests/integration), via CTest.
#
#   ./tools/test.sh                 # build dir build-ci
#   BUILD_DIR=build-x ./tools/test.sh
#   ./tools/test.sh -R integration  # extra arguments go to ctest
#
set -euo pipefail

cd "$(dirname "$0")/.."
./tools/install-deps.sh --test
build=${BUILD_DIR:-build-ci}
jobs=${JOBS:-2}

generator=()
if command -v ninja >/dev/null 2>&1 && [ ! -f "$build/CMakeCache.txt" ]; then
  generator=(-G Ninja)
fi

cmake -S . -B "$build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=Debug -DSLUICE_WERROR=ON -DSLUICE_SANITIZE=ON -DSLUICE_BUILD_TESTS=ON
cmake --build "$build" -j "$jobs"

# Sanitizer reports fail the test that triggers them (the integration fixtures check sluiced's
# exit code on SIGTERM; UBSan is built with -fno-sanitize-recover).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_init_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

ctest --test-dir "$build" --output-on-failure -j "$jobs" "$@"
