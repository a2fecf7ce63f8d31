#!/usr/bin/env bash
# Runs the CUDA plugin's GPU tests and its benchmark on a GPU machine, from a bundle made
# by ../shared/tools/device-bundle (its env.sh puts bin/ on PATH and sets LD_LIBRARY_PATH
# and TILEOPS_PLUGIN_PATH). Takes about 3 to 5 minutes on one H200.
#
#   run_on_gpu.sh [BUNDLE_DIR]     # sources BUNDLE_DIR/env.sh when given
#
# BENCH_ARGS (optional) is passed to bench_cuda, e.g. BENCH_ARGS="--filter Cumsum,Softmax".
#
# Writes to $OUT (default ./cuda-gpu-results): gpu.txt (board, driver, clocks),
# <test>.log for each test binary, bench_cuda.log, bench_cuda.md, bench_cuda.csv.
# Exits non-zero when a test fails.
set -uo pipefail

if [ $# -ge 1 ]; then
  # shellcheck disable=SC1091
  source "$1/env.sh"
fi
out=${OUT:-$PWD/cuda-gpu-results}
mkdir -p "$out"

# NVRTC comes from the machine's CUDA toolkit; make sure the loader finds it.
for dir in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [ -e "$dir/libnvrtc.so.13" ] && export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$dir"
done
# A cold kernel cache: the benchmark's first builds are real NVRTC compiles.
TILEOPS_CACHE_DIR=$(mktemp -d)
export TILEOPS_CACHE_DIR
trap 'rm -rf "$TILEOPS_CACHE_DIR"' EXIT

{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
    --format=csv 2>&1
  echo "nvrtc: $(ls /usr/local/cuda/lib64/libnvrtc.so.* 2>/dev/null | tr '\n' ' ')"
} > "$out/gpu.txt"
cat "$out/gpu.txt"

status=0
run() {  # name, time limit in seconds, command...
  local name=$1 limit=$2
  shift 2
  local start=$SECONDS
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  echo "== $name: exit $rc in $((SECONDS - start)) s"
  tail -n 4 "$out/$name.log"
  [ $rc -eq 0 ] || status=1
}

run test_cuda_plugin_load 60 test_cuda_plugin_load
run test_cuda_gpu_ops 240 test_cuda_gpu_ops --duration=true
run test_cuda_gpu_runtime 120 test_cuda_gpu_runtime --duration=true
# shellcheck disable=SC2086  # BENCH_ARGS is a list of arguments
run bench_cuda 300 bench_cuda --out "$out" ${BENCH_ARGS:-}
sed -n '/^# bench_cuda/,$p' "$out/bench_cuda.log" | tail -n 80
exit $status
