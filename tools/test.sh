#!/usr/bin/env bash
# Install what is missing, build sluice with clang, warnings as errors, sanitizers (ASan +
# UBSan) and the libFuzzer targets, then run every test: the GoogleTest unit tests, the pytest
# integration tests (tests/integration) and a short fuzzing run, via CTest. Then build with
# GCC, warnings as errors, as users do (tools/run.sh, the Dockerfile: -O3, jemalloc), and run
# the integration tests whose checks depend on the build (CTest label `release`) against it.
#
#   ./tools/test.sh                 # build dirs build-ci and build-ci-release
#   BUILD_DIR=build-x ./tools/test.sh
#   ./tools/test.sh -R integration  # extra arguments go to ctest (sanitizer build only)
#
set -euo pipefail

cd "$(dirname "$0")/.."
# Each phase's time, printed as it ends: CI should stay under 20 minutes on two cores.
phase_started=$SECONDS
phase_done() {
  echo "== $1: $((SECONDS - phase_started)) s"
  phase_started=$SECONDS
}
./tools/install-deps.sh --test
phase_done "dependencies"
build=${BUILD_DIR:-build-ci}
jobs=${JOBS:-2}
# The integration tests wait on servers starting and on the disk: one test more than there
# are build jobs keeps the cores busy (CTest of the sanitizer build on two cores: 373 s with
# two at a time, 311 s with three).
test_jobs=${TEST_JOBS:-$((jobs + 1))}

# Ninja when there is one, unless the directory was configured with another generator.
generator_for() {
  if command -v ninja >/dev/null 2>&1 && [ ! -f "$1/CMakeCache.txt" ]; then
    echo "-GNinja"
  fi
}

# A directory configured with another compiler (GCC's, before session 27) starts over: CMake
# cannot switch compilers in place.
if [ -f "$build/CMakeCache.txt" ] && ! grep -q '^CMAKE_CXX_COMPILER:.*clang' "$build/CMakeCache.txt"; then
  rm -rf "$build/CMakeCache.txt" "$build/CMakeFiles"
fi

# clang, because one build then serves the tests and the fuzzing both (libFuzzer is clang's),
# and it compiles this code in 40% less time than GCC. Coverage is the edge counters only
# (SLUICE_FUZZ_COVERAGE), which slows the tests least; line tables only, as debug information:
# the sanitizers' stack traces need no more. lld where there is one: sluiced and the unit test
# binaries link in 1.8 s rather than 8.
linker=()
if command -v ld.lld >/dev/null 2>&1; then
  linker=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld)
fi
cmake -S . -B "$build" $(generator_for "$build") -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only "${linker[@]}" \
  -DSLUICE_WERROR=ON -DSLUICE_SANITIZE=ON -DSLUICE_BUILD_TESTS=ON \
  -DSLUICE_FUZZ=ON -DSLUICE_FUZZ_COVERAGE=edges
cmake --build "$build" -j "$jobs"
phase_done "sanitizer build"

# Sanitizer reports fail the test that triggers them (the integration fixtures check sluiced's
# exit code on SIGTERM; UBSan is built with -fno-sanitize-recover).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_init_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

ctest --test-dir "$build" --output-on-failure -j "$test_jobs" "$@"
# CTest runs each unit test binary in parts and counts a part with a skipped test (GTEST_SKIP:
# a kernel feature or a disk a test needs) as passed: name what skipped.
skipped=$(grep -h '^\[  SKIPPED \] [A-Za-z]' "$build/Testing/Temporary/LastTest.log" |
  sed 's/ ([0-9]* ms)$//' | sort -u || true)
[ -z "$skipped" ] || printf 'Unit tests skipped:\n%s\n' "$skipped"
phase_done "tests, sanitizer build"
[ $# -eq 0 ] || exit 0  # a chosen subset: the sanitizer build only

# The release build shares no object file with the one above, and is GCC's check of the
# warnings (of the server; the tests are checked by clang above). A unity build (files merged
# in batches of CMake's default eight) compiles it in about half the time; each file still
# compiles alone in the build above, which shows one that forgets an include.
release=$build-release
cmake -S . -B "$release" $(generator_for "$release") \
  -DCMAKE_BUILD_TYPE=Release -DSLUICE_WERROR=ON -DSLUICE_BUILD_TESTS=ON -DCMAKE_UNITY_BUILD=ON
cmake --build "$release" -j "$jobs" --target sluiced sluice_io_fault
phase_done "release build"
# Every integration file has passed under the sanitizers; those labelled `release` (timing,
# the allocator, full sizes, packaging, the limiters: tests/CMakeLists.txt) run again here.
# All of them again took 139 s, over a tenth of CI.
ctest --test-dir "$release" -L release --output-on-failure -j "$test_jobs"
phase_done "integration tests, release build"
