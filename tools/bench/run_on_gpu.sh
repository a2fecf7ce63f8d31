#!/usr/bin/env bash
# `tileops bench` on a GPU machine, from a bundle made by ../shared/tools/device-bundle
# (its env.sh puts bin/ on PATH and sets LD_LIBRARY_PATH and TILEOPS_PLUGIN_PATH):
# calibrates the device profile, then verifies and times every workload of the norm,
# reduction, elementwise and rope families. About 3 to 5 minutes on one H200.
#
#   run_on_gpu.sh [BUNDLE_DIR]     # sources BUNDLE_DIR/env.sh when given
#
# Writes to $OUT (default ./bench-gpu-results): gpu.txt (board, driver, clocks),
# h200.yaml (the profile with its calibration: copy it to manifest/profiles/),
# calibrate.log, bench.log, bench.md (the report for docs/perf/), bench.csv, bench.json,
# roofline.svg, and where torch is installed torch.log, torch.md, torch.csv (PyTorch eager
# on the same rows). Exits non-zero when a step fails or a case fails verification.
set -uo pipefail

if [ $# -ge 1 ]; then
  # shellcheck disable=SC1091
  source "$1/env.sh"
fi
out=${OUT:-$PWD/bench-gpu-results}
mkdir -p "$out"

# NVRTC (kernel builds), CUPTI (timing) and cuBLASLt (the GEMM baseline) come from the
# machine's CUDA toolkit; make sure the loader finds them.
for dir in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda/extras/CUPTI/lib64; do
  [ -d "$dir" ] && export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$dir"
done
# A cold kernel cache: first builds are real NVRTC compiles, outside the timed calls.
TILEOPS_CACHE_DIR=$(mktemp -d)
export TILEOPS_CACHE_DIR
trap 'rm -rf "$TILEOPS_CACHE_DIR"' EXIT

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv > "$out/gpu.txt" 2>&1
cat "$out/gpu.txt"

status=0
step() {  # name, time limit in seconds, command...
  local name=$1 limit=$2
  shift 2
  local start=$SECONDS
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  echo "== $name: exit $rc in $((SECONDS - start)) s"
  [ $rc -eq 0 ] || status=1
}

# Calibration writes the measured ceilings into the profile the run then uses.
step calibrate 60 tileops bench --calibrate --profile "$out/h200.yaml"
cat "$out/calibrate.log"
step bench 420 tileops bench --family norm --family reduction --family elementwise --family rope \
  --profile "$out/h200.yaml" --report "$out/bench.md" --csv "$out/bench.csv" --json "$out/bench.json" \
  --plot "$out/roofline.svg"
# PyTorch eager on the same rows, where torch is installed (torch_eager.py).
if python3 -c "import torch" 2>/dev/null; then
  step torch 300 python3 "$(dirname "$0")/torch_eager.py" "$out/bench.json" --csv "$out/torch.csv" \
    --markdown "$out/torch.md"
  tail -n 3 "$out/torch.log"
else
  echo "== torch: not installed, PyTorch eager not measured"
fi
sed -n '/^| cases/,/^$/p' "$out/bench.md" 2>/dev/null
sed -n '/^## Not timed/,$p' "$out/bench.md" 2>/dev/null | head -n 40
exit $status
