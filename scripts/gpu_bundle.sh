#!/usr/bin/env bash
# Packs a build for the GPU machine (the `device` tool carries it): the CLI, the GPU test
# and benchmark binaries, libtileops, the built-in CUDA plugin and cpu_ref, through
# ../shared/tools/device-bundle, into OUT (default .bundle). With --base REV, also
# OUT/base: libtileops and the built-in CUDA plugin of revision REV, built in a git
# worktree (build-base/, kept for the next time), for tools/bench/ab_on_gpu.sh.
#
#   scripts/gpu_bundle.sh [--base REV] [OUT]
#
# Builds BUILD_DIR (default build) first. On the GPU machine: `source OUT/env.sh`, then
# tests/cuda/run_on_gpu.sh, tools/bench/run_on_gpu.sh or
# tools/bench/ab_on_gpu.sh OUT OUT/base ROUNDS [bench arguments].
set -euo pipefail
cd "$(dirname "$0")/.."
base=""
if [ "${1:-}" = "--base" ]; then
  base=${2:?--base needs a revision}
  shift 2
fi
out=${1:-.bundle}
build=${BUILD_DIR:-build}
device_bundle=${DEVICE_BUNDLE:-../shared/tools/device-bundle}

cmake --build "$build" --parallel "${JOBS:-$(nproc)}"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib/tileops/plugins"
cp "$build"/bin/{tileops,bench_cuda,test_cuda_gpu_ops,test_cuda_gpu_runtime,test_cuda_plugin_load} "$stage/bin/"
# Only the runtime's libraries and the two real backends: the test fixtures include a
# plugin whose dependency is missing on purpose, which the bundler cannot resolve.
cp -a "$build"/lib/libtileops*.so* "$stage/lib/"
rm -f "$stage"/lib/libtileops_fixture*
cp "$build/lib/tileops/plugins/libtileops_cpu_ref.so" "$stage/lib/tileops/plugins/"
strip --strip-debug "$stage"/bin/* "$stage"/lib/*.so* "$stage"/lib/tileops/plugins/*.so 2>/dev/null || true
rm -rf "$out"
"$device_bundle" "$stage" "$out" | sed -n 1p

if [ -n "$base" ]; then
  worktree=build-base/src
  if [ -d "$worktree" ]; then
    git -C "$worktree" checkout -q --detach "$base"
  else
    git worktree add -q --detach "$worktree" "$base"
  fi
  cmake -S "$worktree" -B build-base/build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
  cmake --build build-base/build --parallel "${JOBS:-$(nproc)}" --target tileops cuda
  mkdir -p "$out/base"
  cp -a build-base/build/lib/libtileops.so* build-base/build/lib/libtileops_builtin_cuda.so "$out/base/"
  strip --strip-debug "$out"/base/*.so* 2>/dev/null || true
  echo "base: $(git -C "$worktree" log --oneline -1) in $out/base"
fi
