#!/usr/bin/env bash
# Runs the CUDA plugin's GPU tests and its benchmark on a GPU machine, from a bundle made
# by ../shared/tools/device-bundle (its env.sh puts bin/ on PATH and sets LD_LIBRARY_PATH
# and TILEOPS_PLUGIN_PATH). Takes about 6 minutes on one H200.
#
#   run_on_gpu.sh [BUNDLE_DIR]     # sources BUNDLE_DIR/env.sh when given
#
# BENCH_ARGS (optional) is passed to bench_cuda, e.g. BENCH_ARGS="--filter Cumsum,Softmax".
#
# Writes to $OUT (default ./cuda-gpu-results): bench_cuda.md and bench_cuda.csv, and
# logs.tar.gz: gpu.txt (board, driver, clocks), <test>.log for each test binary,
# bench_cuda.log.
# Exits non-zero when a test fails.
set -uo pipefail

# shellcheck source=../../scripts/lib/gpu_run.sh
source "$(dirname "$0")/../../scripts/lib/gpu_run.sh"
gpu_run_setup "${1:-}" "$PWD/cuda-gpu-results"

gpu_step test_cuda_plugin_load 60 test_cuda_plugin_load
# Its cases took 221-239 s together on the H200 (seventeenth to nineteenth sessions).
gpu_step test_cuda_gpu_ops 420 test_cuda_gpu_ops --duration=true
gpu_step test_cuda_gpu_runtime 120 test_cuda_gpu_runtime --duration=true
# shellcheck disable=SC2086  # BENCH_ARGS is a list of arguments
gpu_step bench_cuda 300 bench_cuda --out "$out" ${BENCH_ARGS:-}
sed -n '/^# bench_cuda/,$p' "$out/bench_cuda.log" | tail -n 80
gpu_run_pack bench_cuda.md bench_cuda.csv
exit $status
