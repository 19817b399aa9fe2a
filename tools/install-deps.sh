#!/usr/bin/env bash
# Installs what building sluice needs on Debian bookworm (and, with --test, what its tests
# need: redis-server for differential tests, python3-redis, pytest, Node.js, rate-limiter
# libraries). Packages that are already installed are skipped, so this is quick on a
# prepared machine.
#
#   ./tools/install-deps.sh          # build dependencies
#   ./tools/install-deps.sh --test   # plus test dependencies
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
as_root=()
if [ "$(id -u)" -ne 0 ]; then
  as_root=(sudo -n)
fi

packages=(
  build-essential cmake ninja-build pkg-config
  librocksdb-dev libboost-dev libspdlog-dev libgtest-dev libgmock-dev libjemalloc-dev
  liblua5.1-0-dev lua-cjson lua-bitop libmsgpack-dev libssl-dev libxxhash-dev liblzf-dev
)
if [ "${1:-}" = "--test" ]; then
  packages+=(redis-server redis-tools python3 python3-redis python3-pytest)
  # Rate-limiter libraries that users point at sluice, run unchanged by the library tests.
  packages+=(python3-limits python3-flask-limiter)
  # Reliability tests: clang and its libFuzzer runtime (tests/fuzz), strace (appendfsync
  # always is traced), iproute2 (protected-mode from a network namespace), mount (util-linux:
  # a small tmpfs for the full-disk tests). lld links the sanitizer build's large binaries in
  # a quarter of ld's time (tools/test.sh).
  packages+=(clang libclang-rt-14-dev lld strace iproute2 util-linux)
  # Node.js for the client-library tests. An image that already has node and npm (e.g. a
  # NodeSource nodejs, which bundles npm and conflicts with Debian's npm) keeps them.
  command -v node >/dev/null 2>&1 || packages+=(nodejs)
  command -v npm >/dev/null 2>&1 || packages+=(npm)
  # Headless Chromium (driven by playwright-core) for the status page test; a font to render
  # its text in the screenshot. dpkg-dev gives the .deb test its package dependencies.
  packages+=(chromium fonts-dejavu-core dpkg-dev)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  "${as_root[@]}" apt-get update
  "${as_root[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi

if [ "${1:-}" = "--test" ]; then
  # Debian's redis-server starts itself on 6379 when installed. Tests never use 6379 (every
  # server gets a free port), but stop it so it cannot be mistaken for sluiced.
  "${as_root[@]}" service redis-server stop >/dev/null 2>&1 || true
fi
