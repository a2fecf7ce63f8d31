#!/usr/bin/env bash
# `tileops bench` on a GPU machine, from a bundle made by ../shared/tools/device-bundle
# (its env.sh puts bin/ on PATH and sets LD_LIBRARY_PATH and TILEOPS_PLUGIN_PATH):
# calibrates the device profile, then verifies and times every workload of the norm,
# reduction, elementwise and rope families. About 3 to 5 minutes on one H200.
#
#   run_on_gpu.sh [BUNDLE_DIR]     # sources BUNDLE_DIR/env.sh when given
#
# Writes to $OUT (default ./bench-gpu-results): bench.md (the report for docs/perf/),
# bench.csv, roofline.svg, targets.md (targets.py: the rows against PERFORMANCE.md's
# targets), where torch is installed torch.md and torch.csv (PyTorch eager on the same
# rows), and logs.tar.gz: gpu.txt (board, driver, clocks), h200.yaml (the profile with
# its calibration: copy it to manifest/profiles/), bench.json and the steps' logs.
# Exits non-zero when a step fails or a case fails verification.
set -uo pipefail

# shellcheck source=../../scripts/lib/gpu_run.sh
source "$(dirname "$0")/../../scripts/lib/gpu_run.sh"
gpu_run_setup "${1:-}" "$PWD/bench-gpu-results"

# Calibration writes the measured ceilings into the profile the run then uses.
gpu_step calibrate 60 tileops bench --calibrate --profile "$out/h200.yaml"
cat "$out/calibrate.log"
gpu_step bench 420 tileops bench --family norm --family reduction --family elementwise --family rope \
  --profile "$out/h200.yaml" --report "$out/bench.md" --csv "$out/bench.csv" --json "$out/bench.json" \
  --plot "$out/roofline.svg"
# PyTorch eager on the same rows, where torch is installed (torch_eager.py).
if python3 -c "import torch" 2>/dev/null; then
  gpu_step torch 300 python3 "$(dirname "$0")/torch_eager.py" "$out/bench.json" --csv "$out/torch.csv" \
    --markdown "$out/torch.md"
else
  echo "== torch: not installed, PyTorch eager not measured"
fi
# PERFORMANCE.md's targets: the covered rows that meet theirs, the rows that miss.
torch_csv=()
[ -f "$out/torch.csv" ] && torch_csv=(--torch "$out/torch.csv")
[ -f "$out/bench.csv" ] && python3 "$(dirname "$0")/targets.py" "$out/bench.csv" "${torch_csv[@]}" > "$out/targets.md" &&
  head -n 1 "$out/targets.md"
sed -n '/^| cases/,/^$/p' "$out/bench.md" 2>/dev/null
sed -n '/^## Not timed/,$p' "$out/bench.md" 2>/dev/null | head -n 40
gpu_run_pack bench.md bench.csv roofline.svg targets.md torch.md torch.csv
exit $status
