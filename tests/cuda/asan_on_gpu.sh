#!/usr/bin/env bash
# Runs the CUDA plugin's GPU tests built under ASan and UBSan on a GPU machine: the host
# code that only runs with a driver (launch parameters, strided copies, the block cache,
# value errors, graph capture) is otherwise never checked by a sanitizer, since CI has no
# GPU. From the bundle `scripts/gpu_bundle.sh --asan` packs in OUT/asan.tar.xz, unpacked.
#
#   asan_on_gpu.sh ASAN_BUNDLE_DIR [SECONDS [FROM]]
#
# test_cuda_gpu_ops runs one test case a process, cheapest first, from case FROM
# (default 1) within SECONDS in all (default 540), so that a case cut off by the limit
# costs only itself. On the H200 cases 1-12 took 330 s (thirtieth session), 2-2.5x
# their uninstrumented time, and GroupNorm and softmax (13, 14) 107 and 163 s
# (thirty-first): the whole run takes two calls (the second FROM 13). Writes to $OUT (default
# ./cuda-asan-results): logs.tar.gz with gpu.txt and a log a test binary or case.
# Exits non-zero when a test fails or a sanitizer reports.
set -uo pipefail

# shellcheck source=../../scripts/lib/gpu_run.sh
source "$(dirname "$0")/../../scripts/lib/gpu_run.sh"
gpu_run_setup "${1:?usage: asan_on_gpu.sh ASAN_BUNDLE_DIR [SECONDS [FROM]]}" "$PWD/cuda-asan-results"
budget=${2:-540}
from=${3:-1}
# The driver maps memory in the range ASan keeps as its shadow gap (the usual setting
# for CUDA under ASan), and keeps allocations for the life of the process (not leaks).
export ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

start=$SECONDS
[ "$from" -gt 1 ] || gpu_step asan_test_cuda_gpu_runtime 200 test_cuda_gpu_runtime --duration=true
# The cases by their time on the H200 (thirtieth session), shortest first; doctest
# splits filters at commas, so they match as '?'.
cases=(
  "RoPE: a position outside the cache is a ValueError naming it"
  "fused add + RMSNorm writes a strided residual in place"
  "gated activations"
  "add and mul with broadcasting"
  "activations"
  "RoPE? neox and interleaved? partial rotary dims"
  "argmax: first index of the maximum? NaN counting as the maximum"
  "LayerNorm"
  "RMSNorm and fused add + RMSNorm"
  "cumsum"
  "sum? mean? amax over any axes"
  "inputs one element into their buffers take every family's fallback kernels"
  "GroupNorm"
  "softmax and log-softmax along any dim"
)
n=0
for c in "${cases[@]}"; do
  n=$((n + 1))
  [ $n -ge "$from" ] || continue
  left=$((budget - (SECONDS - start)))
  if [ $left -lt 20 ]; then
    echo "== not run (budget spent): $c"
    continue
  fi
  gpu_step "asan_case_$n" "$left" test_cuda_gpu_ops "-tc=$c" --duration=true
done
grep -h -A12 "ERROR: AddressSanitizer\|runtime error:" "$out"/asan_*.log | head -n 60
gpu_run_pack
exit $status
