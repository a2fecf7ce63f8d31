#pragma once
// Matrix products over contiguous row-major buffers, accumulated in double.
// T: float, f16, bf16.
#include <cstdint>

namespace tileops::cpu_ref {

// y [m, n] = op(a) @ op(b): a is [m, k] ([k, m] when trans_a), b is [k, n] ([n, k] when
// trans_b), op transposes when asked.
template <class T>
void gemm(const T* a, const T* b, T* y, int64_t m, int64_t n, int64_t k, bool trans_a,
          bool trans_b);

// torch.bmm: y [batch, m, n] = a [batch, m, k] @ b [batch, k, n].
template <class T>
void bmm(const T* a, const T* b, T* y, int64_t batch, int64_t m, int64_t n, int64_t k);

}  // namespace tileops::cpu_ref
