#include "kernels/gemm.hpp"

#include "numeric.hpp"

#include <algorithm>
#include <vector>

namespace tileops::cpu_ref {

template <class T>
void gemm(const T* a, const T* b, T* y, int64_t m, int64_t n, int64_t k, bool trans_a,
          bool trans_b) {
  // op(b) as a [k, n] row-major matrix of doubles: the inner loop then runs along a row.
  std::vector<double> b_kn(static_cast<size_t>(k * n));
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j)
      b_kn[size_t(p * n + j)] = to_double(trans_b ? b[j * k + p] : b[p * n + j]);

  std::vector<double> row(static_cast<size_t>(n));
  for (int64_t i = 0; i < m; ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    for (int64_t p = 0; p < k; ++p) {
      const double a_ip = to_double(trans_a ? a[p * m + i] : a[i * k + p]);
      const double* b_p = b_kn.data() + p * n;
      for (int64_t j = 0; j < n; ++j) row[size_t(j)] += a_ip * b_p[j];
    }
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = from_double<T>(row[size_t(j)]);
  }
}

template <class T>
void bmm(const T* a, const T* b, T* y, int64_t batch, int64_t m, int64_t n, int64_t k) {
  for (int64_t i = 0; i < batch; ++i)
    gemm(a + i * m * k, b + i * k * n, y + i * m * n, m, n, k, false, false);
}

#define CPU_REF_INSTANTIATE(T)                                                    \
  template void gemm<T>(const T*, const T*, T*, int64_t, int64_t, int64_t, bool, bool); \
  template void bmm<T>(const T*, const T*, T*, int64_t, int64_t, int64_t, int64_t);
CPU_REF_INSTANTIATE(float)
CPU_REF_INSTANTIATE(f16)
CPU_REF_INSTANTIATE(bf16)
#undef CPU_REF_INSTANTIATE

}  // namespace tileops::cpu_ref
