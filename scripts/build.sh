#!/usr/bin/env bash
# Installs the build dependencies and builds tileops into BUILD_DIR (default: build).
# Extra arguments go to cmake's configure step, e.g. -DTILEOPS_SANITIZE=ON.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
bash scripts/install-deps.sh
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} "$@"
cmake --build "$build" --parallel "${JOBS:-$(nproc)}"
