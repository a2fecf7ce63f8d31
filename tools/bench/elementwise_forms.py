#!/usr/bin/env python3
"""The forms an elementwise kernel can take, timed against each other and PyTorch eager.

On the GPU machine (needs torch and CuPy, which compiles the kernels with NVRTC):

    python3 tools/bench/elementwise_forms.py [REPS]

Relu and Add over 8192 x 8192 float32 in raw CUDA kernels that differ in one thing at a
time from the plugin's (kernels/elementwise.cuh): the load instruction (non-coherent
with or without L1 allocation, plain, an L2 prefetch hint), streaming stores, the
grid-stride loop against one vector set a thread (torch's form), CTA size and vectors in
flight. Every form is checked against torch; all forms run in turn each round, each call
after a 256 MiB write (no operand in L2) and bracketed by CUDA events; median of REPS
rounds (default 40). The table it prints is in docs/perf/cuda-kernels-h200.md ("Fourth
round"): it is how the plugin's loads came to go through L1.
"""
import statistics
import sys

import cupy as cp
import torch

SRC = r'''
typedef long long i64; typedef unsigned u32;
template <int MODE> __device__ __forceinline__ float4 ld(const float* p) {
  float4 v;
  if (MODE == 0) asm("ld.global.nc.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x),"=f"(v.y),"=f"(v.z),"=f"(v.w) : "l"(p));
  else if (MODE == 1) asm volatile("ld.global.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x),"=f"(v.y),"=f"(v.z),"=f"(v.w) : "l"(p));
  else if (MODE == 2) asm("ld.global.nc.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x),"=f"(v.y),"=f"(v.z),"=f"(v.w) : "l"(p));
  else asm("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x),"=f"(v.y),"=f"(v.z),"=f"(v.w) : "l"(p));
  return v;
}
template <int SMODE> __device__ __forceinline__ void st(float* p, float4 v) {
  if (SMODE == 0) asm volatile("st.global.v4.f32 [%0], {%1,%2,%3,%4};" :: "l"(p),"f"(v.x),"f"(v.y),"f"(v.z),"f"(v.w) : "memory");
  else asm volatile("st.global.cs.v4.f32 [%0], {%1,%2,%3,%4};" :: "l"(p),"f"(v.x),"f"(v.y),"f"(v.z),"f"(v.w) : "memory");
}
__device__ __forceinline__ float4 relu4(float4 v) {
  v.x = v.x < 0.f ? 0.f : v.x; v.y = v.y < 0.f ? 0.f : v.y; v.z = v.z < 0.f ? 0.f : v.z; v.w = v.w < 0.f ? 0.f : v.w; return v;
}
// grid-stride, as the plugin's unary kernel
template <int U, int MODE, int SMODE>
__global__ void gs(const float* x, float* y, i64 n) {
  const i64 nvec = n / 4;
  const i64 stride = i64(gridDim.x) * blockDim.x * U;
  for (i64 base = i64(blockIdx.x) * blockDim.x * U + threadIdx.x; base < nvec; base += stride) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) if (base + u * blockDim.x < nvec) v[u] = ld<MODE>(x + (base + u * blockDim.x) * 4);
#pragma unroll
    for (int u = 0; u < U; ++u) { if (base + u * blockDim.x >= nvec) break; st<SMODE>(y + (base + u * blockDim.x) * 4, relu4(v[u])); }
  }
}
// one-shot, torch-like: each block takes a contiguous block_work and exits
template <int U, int MODE, int SMODE>
__global__ void os(const float* x, float* y, i64 n) {
  const i64 nvec = n / 4;
  const i64 base = i64(blockIdx.x) * blockDim.x * U + threadIdx.x;
  float4 v[U];
#pragma unroll
  for (int u = 0; u < U; ++u) if (base + u * blockDim.x < nvec) v[u] = ld<MODE>(x + (base + u * blockDim.x) * 4);
#pragma unroll
  for (int u = 0; u < U; ++u) if (base + u * blockDim.x < nvec) st<SMODE>(y + (base + u * blockDim.x) * 4, relu4(v[u]));
}
// one-shot, thread-contiguous: each thread takes U consecutive vectors (torch's unrolled loads stride by thread)
template <int U, int MODE, int SMODE>
__global__ void oc(const float* x, float* y, i64 n) {
  const i64 nvec = n / 4;
  const i64 base = (i64(blockIdx.x) * blockDim.x + threadIdx.x) * U;
  float4 v[U];
#pragma unroll
  for (int u = 0; u < U; ++u) if (base + u < nvec) v[u] = ld<MODE>(x + (base + u) * 4);
#pragma unroll
  for (int u = 0; u < U; ++u) if (base + u < nvec) st<SMODE>(y + (base + u) * 4, relu4(v[u]));
}
// binary add, grid-stride (fp32)
template <int U, int MODE, int SMODE>
__global__ void add_gs(const float* a, const float* b, float* y, i64 n) {
  const i64 nvec = n / 4;
  const i64 stride = i64(gridDim.x) * blockDim.x * U;
  for (i64 base = i64(blockIdx.x) * blockDim.x * U + threadIdx.x; base < nvec; base += stride) {
    float4 va[U], vb[U];
#pragma unroll
    for (int u = 0; u < U; ++u) if (base + u * blockDim.x < nvec) { va[u] = ld<MODE>(a + (base + u * blockDim.x) * 4); vb[u] = ld<MODE>(b + (base + u * blockDim.x) * 4); }
#pragma unroll
    for (int u = 0; u < U; ++u) { if (base + u * blockDim.x >= nvec) break; float4 o = make_float4(va[u].x+vb[u].x, va[u].y+vb[u].y, va[u].z+vb[u].z, va[u].w+vb[u].w); st<SMODE>(y + (base + u * blockDim.x) * 4, o); }
  }
}
'''

def nm(k, u, m, s): return f"{k}<{u},{m},{s}>"
# (label, kernel, threads a CTA, vectors a thread, waves of resident CTAs in the grid or
# None for one CTA per CTA-sized piece, binary)
variants = []
for m, ml in [(0, "nc.noalloc"), (1, "plain"), (2, "nc"), (3, "nc.noalloc.L2_256")]:
    variants.append((f"gs 256x8 {ml}", nm("gs", 8, m, 0), 256, 8, 16, False))
variants.append(("gs 256x8 nc.noalloc st.cs", nm("gs", 8, 0, 1), 256, 8, 16, False))
variants.append(("gs 256x8 nc.noalloc waves=1", nm("gs", 8, 0, 0), 256, 8, 1, False))
variants.append(("gs 256x8 nc.noalloc waves=2", nm("gs", 8, 0, 0), 256, 8, 2, False))
for t, u in [(128, 4), (128, 2), (128, 1), (256, 4), (512, 2)]:
    variants.append((f"os {t}x{u} plain", nm("os", u, 1, 0), t, u, None, False))
    variants.append((f"os {t}x{u} nc.noalloc", nm("os", u, 0, 0), t, u, None, False))
for t, u in [(128, 4), (128, 2)]:
    variants.append((f"oc {t}x{u} plain", nm("oc", u, 1, 0), t, u, None, False))
for m, ml in [(0, "nc.noalloc"), (1, "plain"), (3, "nc.noalloc.L2_256")]:
    variants.append((f"add gs 128x4 {ml}", nm("add_gs", 4, m, 0), 128, 4, 16, True))
variants.append((f"add gs 256x2 plain", nm("add_gs", 2, 1, 0), 256, 2, 16, True))
variants.append((f"add gs 128x4 plain waves=1", nm("add_gs", 4, 1, 0), 128, 4, 1, True))
variants.append((f"add os 128x4 plain (gs waves=inf)", nm("add_gs", 4, 1, 0), 128, 4, 10**9, True))

mod = cp.RawModule(code=SRC, options=("-std=c++17",), name_expressions=[v[1] for v in variants])
fn = {v[1]: mod.get_function(v[1]) for v in variants}
dev = cp.cuda.Device(0)
sms = dev.attributes["MultiProcessorCount"]
n = 8192 * 8192
x = torch.randn(n, device="cuda"); b = torch.randn(n, device="cuda"); y = torch.empty_like(x)
flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")

def launcher(v):
    label, name, t, u, waves, binary = v
    f = fn[name]
    work = (n // 4 + t * u - 1) // (t * u)
    grid = work if waves is None else min(work, sms * (2048 // t) * waves)
    if binary:
        args = (x.data_ptr(), b.data_ptr(), y.data_ptr(), cp.int64(n))
    else:
        args = (x.data_ptr(), y.data_ptr(), cp.int64(n))
    args = tuple(cp.uint64(a) if isinstance(a, int) else a for a in args)
    def run():
        f((grid,), (t,), args)  # the legacy default stream, torch's current one
    return run

runs = [(v[0], launcher(v), v[5]) for v in variants]
runs.append(("torch.relu", lambda: torch.relu(x), False))
runs.append(("torch.add", lambda: torch.add(x, b), True))
runs.append(("torch copy_ (y.copy_(x))", lambda: y.copy_(x), False))
for label, r, binary in runs:
    if label.startswith("torch"):
        continue
    y.zero_(); r(); torch.cuda.synchronize()
    ref = (x + b) if binary else torch.relu(x)
    assert torch.equal(y, ref), label
times = {r[0]: [] for r in runs}
reps = int(sys.argv[1]) if len(sys.argv) > 1 else 40
for r in runs: r[1]()
torch.cuda.synchronize()
for rep in range(reps):
    for label, r, _ in runs:
        flush.zero_()
        s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
        s.record(); r(); e.record(); e.synchronize()
        times[label].append(s.elapsed_time(e) * 1000)
for label, _, binary in runs:
    t = statistics.median(times[label])
    bytes_ = n * 4 * (3 if binary else 2)
    print(f"{label:40s} {t:8.2f} us  {bytes_ / t / 1e6:6.3f} TB/s  p10 {sorted(times[label])[len(times[label])//10]:8.2f}")
