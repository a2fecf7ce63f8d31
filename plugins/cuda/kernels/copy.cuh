// Strided copy between two views of one logical shape (the host coalesces dims first):
// the gather behind copy_strided (dst contiguous) and the write-back of a strided
// in-place input (src contiguous). Element by element, moved as raw words of BYTES.
#pragma once
#include "common.cuh"

namespace tileops_cuda {

template <int BYTES>
struct Raw {
  unsigned char b[BYTES];
};
template <>
struct Raw<2> {
  unsigned short v;
};
template <>
struct Raw<4> {
  u32 v;
};
template <>
struct Raw<8> {
  u64 v;
};

template <int BYTES>
__global__ void __launch_bounds__(256) strided_copy(const CopyParams p) {
  const Raw<BYTES>* src = static_cast<const Raw<BYTES>*>(p.src);
  Raw<BYTES>* dst = static_cast<Raw<BYTES>*>(p.dst);
  for (i64 i = i64(blockIdx.x) * blockDim.x + threadIdx.x; i < p.n; i += i64(gridDim.x) * blockDim.x) {
    i64 s = 0, d = 0;
    for (i64 rest = i, k = p.ndim - 1; k >= 0; --k) {
      const i64 idx = rest % p.shape[k];
      rest /= p.shape[k];
      s += idx * p.src_stride[k];
      d += idx * p.dst_stride[k];
    }
    dst[d] = src[s];
  }
}

}  // namespace tileops_cuda
