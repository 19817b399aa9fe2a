#!/usr/bin/env bash
# Quick start: install what is missing, build a release sluiced, and run it with its embedded
# defaults (RocksDB in ./sluice-data, port 6379 on loopback). Extra arguments are passed on:
#   ./tools/run.sh --port 7000 --appendfsync always
set -euo pipefail

cd "$(dirname "$0")/.."
./tools/install-deps.sh
build=${BUILD_DIR:-build-release}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSLUICE_BUILD_TESTS=OFF
cmake --build "$build" -j "${JOBS:-2}" --target sluiced
exec "$build/sluiced" "$@"
