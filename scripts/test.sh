#!/usr/bin/env bash
# Builds tileops and runs the test suite (GPU tests skip visibly without a driver).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh "$@"
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure --parallel "${JOBS:-$(nproc)}" -LE stress
