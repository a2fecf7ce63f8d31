#!/usr/bin/env bash
# Packs a build for the GPU machine (the `device` tool carries it): the CLI, the GPU test
# and benchmark binaries, libtileops, the built-in CUDA plugin and cpu_ref, through
# ../shared/tools/device-bundle, into OUT (default .bundle). With --base REV, also
# OUT/base: libtileops and the built-in CUDA plugin of revision REV, built in a git
# worktree (build-base/, kept for the next time), for tools/bench/ab_on_gpu.sh. Each
# --variant NAME=REV adds OUT/variants/NAME, built the same way in
# build-base/variants/NAME/, which ab_on_gpu.sh times beside the candidate and the base.
# REV may instead be a patch file (git format-patch; docs/perf/experiments/ keeps the
# prepared ones, since a fresh checkout has main only): the variant is HEAD with it
# applied.
# --asan adds OUT/asan.tar.xz, a bundle of its own (env.sh included) with the GPU tests
# built under ASan and UBSan in build-asan/, optimised (the CI's sanitizer build is a
# Debug one: the GPU tests' CPU references over 64M-element tensors would take minutes),
# for tests/cuda/asan_on_gpu.sh. Packed, as the instrumented libraries take 68 MB and
# the device tool carries 64 MiB in all: `tar -xJf OUT/asan.tar.xz -C DIR` on the GPU
# machine gives DIR/asan (10 MB packed).
#
#   scripts/gpu_bundle.sh [--base REV] [--variant NAME=REV]... [--asan] [OUT]
#
# Builds BUILD_DIR (default build) first. On the GPU machine: `source OUT/env.sh`, then
# tests/cuda/run_on_gpu.sh, tools/bench/run_on_gpu.sh or
# tools/bench/ab_on_gpu.sh OUT OUT/base ROUNDS [bench arguments].
set -euo pipefail
cd "$(dirname "$0")/.."
base=""
variants=()
asan=0
while [ $# -gt 0 ]; do
  case $1 in
    --base) base=${2:?--base needs a revision}; shift 2 ;;
    --asan) asan=1; shift ;;
    --variant)
      # NAME names files on the GPU machine: letters, digits, '.', '_' and '-' only.
      [[ ${2:-} =~ ^[A-Za-z0-9._-]+=.+$ ]] || { echo "--variant needs NAME=REV, got '${2:-}'" >&2; exit 2; }
      variants+=("$2"); shift 2 ;;
    *) break ;;
  esac
done
[ ${#variants[@]} -eq 0 ] || [ -n "$base" ] || { echo "--variant needs --base: variants are timed against it" >&2; exit 2; }
out=${1:-.bundle}
build=${BUILD_DIR:-build}
device_bundle=${DEVICE_BUNDLE:-../shared/tools/device-bundle}

# Bundles build dir $1's binaries $3... with the runtime's libraries and the two real
# backends into $2 (the test fixtures include a plugin whose dependency is missing on
# purpose, which the bundler cannot resolve).
bundle_build() {
  local from=$1 dest=$2 stage
  shift 2
  stage=$(mktemp -d)
  mkdir -p "$stage/bin" "$stage/lib/tileops/plugins"
  for binary in "$@"; do cp "$from/bin/$binary" "$stage/bin/"; done
  cp -a "$from"/lib/libtileops*.so* "$stage/lib/"
  rm -f "$stage"/lib/libtileops_fixture*
  cp "$from/lib/tileops/plugins/libtileops_cpu_ref.so" "$stage/lib/tileops/plugins/"
  strip --strip-debug "$stage"/bin/* "$stage"/lib/*.so* "$stage"/lib/tileops/plugins/*.so 2>/dev/null || true
  "$device_bundle" "$stage" "$dest" | sed -n 1p
  rm -rf "$stage"
}

cmake --build "$build" --parallel "${JOBS:-$(nproc)}"
rm -rf "$out"
bundle_build "$build" "$out" tileops bench_cuda test_cuda_gpu_ops test_cuda_gpu_runtime test_cuda_plugin_load
if [ $asan -eq 1 ]; then
  # Warnings stay warnings: GCC 12 at -O2 under ASan warns of uninitialised std::variant
  # members (maybe-uninitialized) that the -Werror builds do not.
  cmake -S . -B build-asan -G Ninja -DTILEOPS_SANITIZE=ON -DTILEOPS_WERROR=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
  cmake --build build-asan --parallel "${JOBS:-$(nproc)}" --target test_cuda_gpu_ops test_cuda_gpu_runtime cpu_ref cuda
  bundle_build build-asan "$out/asan" test_cuda_gpu_ops test_cuda_gpu_runtime
  # The bundler copies a library under its soname and its full version: the loader
  # needs the soname only.
  for lib in "$out"/asan/lib/*.so.*.*; do
    if [ -e "${lib%.*.*}" ]; then rm "$lib"; fi
  done
  tar -cf - -C "$out" asan | xz -T0 -6 > "$out/asan.tar.xz"
  rm -rf "$out/asan"
  echo "asan: $(du -h "$out/asan.tar.xz" | cut -f1) packed in $out/asan.tar.xz"
fi

# Builds libtileops and the built-in CUDA plugin of revision $1 (or of HEAD with the
# patch file $1 applied) in a git worktree under $2 (kept for the next time) and copies
# them into $3.
build_revision() {
  # Resolved here: in the worktree, a name such as HEAD means the worktree's own commit.
  local rev patch="" work=$2 dest=$3
  if [ -f "$1" ]; then
    patch=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
    rev=$(git rev-parse HEAD)
  else
    rev=$(git rev-parse --verify "$1^{commit}")
  fi
  if [ -d "$work/src" ]; then
    # A patch applied there last time, new files included, is undone first.
    git -C "$work/src" reset -q --hard
    git -C "$work/src" clean -qfd
    git -C "$work/src" checkout -q --detach "$rev"
  else
    git worktree add -q --detach "$work/src" "$rev"
  fi
  if [ -n "$patch" ]; then
    git -C "$work/src" apply "$patch" || { echo "$1 does not apply to HEAD ($(git log --oneline -1))" >&2; exit 1; }
  fi
  cmake -S "$work/src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
  cmake --build "$work/build" --parallel "${JOBS:-$(nproc)}" --target tileops cuda
  mkdir -p "$dest"
  cp -a "$work"/build/lib/libtileops.so* "$work/build/lib/libtileops_builtin_cuda.so" "$dest/"
  strip --strip-debug "$dest"/*.so* 2>/dev/null || true
  echo "$(basename "$dest"): $(git -C "$work/src" log --oneline -1)${patch:+ with $1} in $dest"
}

if [ -n "$base" ]; then
  build_revision "$base" build-base "$out/base"
fi
for variant in ${variants[@]+"${variants[@]}"}; do
  build_revision "${variant#*=}" "build-base/variants/${variant%%=*}" "$out/variants/${variant%%=*}"
done
