#!/usr/bin/env bash
# A/B of builds of the built-in CUDA plugin on a GPU machine, in one run: `tileops bench`
# on the same cases with the candidate (the bundle's own build), each variant, and the
# base (BASE_DIR) in turn, ROUNDS times each, so that the machine's drift and the noise
# between sessions (~4% on the H200) fall on all alike; then ab_compare.py.
#
#   ab_on_gpu.sh BUNDLE_DIR BASE_DIR ROUNDS [tileops bench arguments...]
#   e.g. ab_on_gpu.sh .bundle .bundle/base 2 GroupNormFwdOp --label sdxl-vae-dec-256ch
#
# BUNDLE_DIR: a bundle from ../shared/tools/device-bundle ("" when the environment is
# already set). BASE_DIR: the base build's libtileops.so* and libtileops_builtin_cuda.so
# (the runtime loads built-in plugins from beside itself). Variants: each directory
# NAME in VARIANTS_DIR (default: variants/ beside BASE_DIR) holding the same two
# libraries. `scripts/gpu_bundle.sh --base REV [--variant NAME=REV]...` makes them all:
# .bundle, .bundle/base and .bundle/variants/NAME.
#
# A variant's build timed under several settings of its environment (an experiment's
# TILEOPS_EXP_* switches): a file `settings` in its directory, one line a setting,
# "SETTING VAR=VALUE..." (values without spaces; # starts a comment), each timed as the
# variant NAME-SETTING. Without the file the build is timed once, as NAME.
#
# AB_SECONDS=N fits the rounds into N seconds, for a call under a device-time limit: a
# round is started only when the last one's length says it ends in time (the first
# always is, each of its runs limited to what is left), and the rounds done are
# compared. The candidate may be any build: put its directory first on LD_LIBRARY_PATH
# (VARIANTS_DIR=/nonexistent to time it against the base alone).
#
# AB_BENCH=bench_cuda times with bench_cuda instead (CUDA events, L2 flushed, the
# workload rows; the arguments are bench_cuda's, e.g. --filter TEXT --reps 30; its JIT
# table is left out).
#
# Writes to $OUT (default ./ab-gpu-results): ab.md (ab_compare.py's tables) and
# logs.tar.gz: gpu.txt, candidate-K.csv/.log, variant-NAME-K.csv/.log and base-K.csv/.log
# for each round K (`tar -xzf logs.tar.gz` and ab_compare.py DIR read them again). Exits
# non-zero when a run fails.
set -uo pipefail

bench_dir=$(dirname "$0")  # not "here": the bundle's env.sh sets that
# shellcheck source=../../scripts/lib/gpu_run.sh
source "$bench_dir/../../scripts/lib/gpu_run.sh"
[ $# -ge 3 ] || { sed -n '2,12p' "$0"; exit 2; }
bundle=$1 base=$2 rounds=$3
shift 3
gpu_run_setup "$bundle" "$PWD/ab-gpu-results"
[ -f "$base/libtileops_builtin_cuda.so" ] || { echo "no libtileops_builtin_cuda.so in '$base'"; exit 2; }
base=$(cd "$base" && pwd)
# Each variant run: its name, its libraries' directory and its settings, at one index.
variant_names=() variant_dirs=() variant_envs=()
for dir in "${VARIANTS_DIR:-$base/../variants}"/*/; do
  [ -f "$dir/libtileops_builtin_cuda.so" ] || continue
  dir=$(cd "$dir" && pwd)
  if [ -f "$dir/settings" ]; then
    while read -r setting assignments || [ -n "$setting" ]; do
      [ -n "$setting" ] || continue
      [[ $setting =~ ^[A-Za-z0-9_.]+$ && $assignments =~ ^([A-Za-z_][A-Za-z0-9_]*=[^[:space:]]*[[:space:]]*)+$ ]] ||
        { echo "$dir/settings: a line is SETTING VAR=VALUE..., not '$setting $assignments'"; exit 2; }
      variant_names+=("$(basename "$dir")-$setting") variant_dirs+=("$dir") variant_envs+=("$assignments")
    done < <(sed 's/#.*//' "$dir/settings")
  else
    variant_names+=("$(basename "$dir")") variant_dirs+=("$dir") variant_envs+=("")
  fi
done

start=$SECONDS
# Seconds a run may take: 600, or what is left of AB_SECONDS if less.
run_limit() {
  [ -n "${AB_SECONDS:-}" ] || { echo 600; return; }
  local left=$((AB_SECONDS - (SECONDS - start)))
  echo $((left < 1 ? 1 : left > 600 ? 600 : left))
}

# One timed run as $out/NAME.csv (and NAME.log), with the libraries found first on
# LD_LIBRARY_PATH and the VAR=VALUE words of SETTINGS in its environment.
bench_run() {
  local name=$1 vars
  read -r -a vars <<< "$2"
  shift 2
  if [ "${AB_BENCH:-tileops}" = bench_cuda ]; then
    mkdir -p "$out/$name.d"
    gpu_step "$name" "$(run_limit)" env ${vars[@]+"${vars[@]}"} bench_cuda "$@" --jit-builds 0 --out "$out/$name.d"
    cp "$out/$name.d/bench_cuda.csv" "$out/$name.csv" 2>/dev/null
    rm -rf "$out/$name.d"
  else
    gpu_step "$name" "$(run_limit)" env ${vars[@]+"${vars[@]}"} tileops bench "$@" --csv "$out/$name.csv"
  fi
}

last_round=0
for ((k = 1; k <= rounds; ++k)); do
  if [ -n "${AB_SECONDS:-}" ] && [ $k -gt 1 ] && [ $((SECONDS - start + last_round)) -gt "$AB_SECONDS" ]; then
    echo "== rounds $k to $rounds not started: a round takes ${last_round} s, AB_SECONDS=$AB_SECONDS"
    break
  fi
  round_start=$SECONDS
  bench_run "candidate-$k" "" "$@"
  for ((v = 0; v < ${#variant_names[@]}; ++v)); do
    LD_LIBRARY_PATH="${variant_dirs[v]}:$LD_LIBRARY_PATH" bench_run "variant-${variant_names[v]}-$k" "${variant_envs[v]}" "$@"
  done
  LD_LIBRARY_PATH="$base:$LD_LIBRARY_PATH" bench_run "base-$k" "" "$@"
  last_round=$((SECONDS - round_start))
done
python3 "$bench_dir/ab_compare.py" "$out" | tee "$out/ab.md"
gpu_run_pack ab.md
exit $status
