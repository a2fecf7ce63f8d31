# Sourced by the run_on_gpu.sh scripts (tests/cuda, tools/bench) on the GPU machine:
#
#   gpu_run_setup BUNDLE_DIR_OR_EMPTY DEFAULT_OUT   # sets $out, the loader path, a cold
#                                                   # kernel cache; writes $out/gpu.txt
#   gpu_step NAME LIMIT_S COMMAND...                # $out/NAME.log; clears $status on failure
#   gpu_run_pack REPORT...                          # the rest of $out into logs.tar.gz
#
# A bundle from ../shared/tools/device-bundle has an env.sh that puts bin/ on PATH and
# sets LD_LIBRARY_PATH and TILEOPS_PLUGIN_PATH.
status=0

gpu_run_setup() {
  local bundle=$1
  if [ -n "$bundle" ]; then
    # shellcheck disable=SC1091
    source "$bundle/env.sh"
  fi
  out=${OUT:-$2}
  mkdir -p "$out"
  # NVRTC (kernel builds), CUPTI (timing) and cuBLASLt (the GEMM baseline) come from the
  # machine's CUDA toolkit: make sure the loader finds them.
  local dir
  for dir in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda/extras/CUPTI/lib64; do
    [ -d "$dir" ] && export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$dir"
  done
  # A cold kernel cache: first builds are real NVRTC compiles, outside any timed call.
  TILEOPS_CACHE_DIR=$(mktemp -d)
  export TILEOPS_CACHE_DIR
  trap 'rm -rf "$TILEOPS_CACHE_DIR"' EXIT
  {
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
      --format=csv 2>&1
    echo "nvrtc: $(ls /usr/local/cuda/lib64/libnvrtc.so.* 2>/dev/null | tr '\n' ' ')"
  } > "$out/gpu.txt"
  cat "$out/gpu.txt"
}

gpu_step() {
  local name=$1 limit=$2
  shift 2
  local start=$SECONDS
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  echo "== $name: exit $rc in $((SECONDS - start)) s"
  tail -n 4 "$out/$name.log"
  [ $rc -eq 0 ] || status=1
}

# Leaves the named reports in $out and packs everything else there (logs, raw tables,
# the profile) into $out/logs.tar.gz: whatever fetches a results folder (a CI artifact
# upload, a lent GPU machine's file return, at most 8 files there) gets the reports
# whole and loses nothing else. Run last.
gpu_run_pack() {
  local keep=" $* " rest=() path name
  for path in "$out"/*; do
    name=$(basename "$path")
    [[ -e $path && $keep != *" $name "* && $name != logs.tar.gz ]] && rest+=("$name")
  done
  [ ${#rest[@]} -gt 0 ] || return 0
  tar -czf "$out/logs.tar.gz" -C "$out" "${rest[@]}" && (cd "$out" && rm -rf -- "${rest[@]}")
}
