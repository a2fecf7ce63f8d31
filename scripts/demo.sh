#!/usr/bin/env bash
# Builds tileops, lists the plugins it finds, and runs a small model-like sequence
# (RMSNorm -> GEMM -> SiluAndMul -> GEMM) on the CPU through the cpu_ref backend.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
bin=${BUILD_DIR:-build}/bin
"$bin/tileops" plugins
"$bin/tileops" demo
