#include "kernels/rope.hpp"

#include "kernels/indexing.hpp"
#include "numeric.hpp"

#include <tileops/sdk/plugin.hpp>

#include <string>

namespace tileops::cpu_ref {

namespace {

// "[1, 3]": the index into `shape` of flat element `flat`.
std::string format_index(std::span<const int64_t> shape, int64_t flat) {
  Shape index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return sdk::format_shape(index);
}

template <class P>
void check_positions(const P* positions, std::span<const int64_t> batch_shape,
                     int64_t max_positions) {
  const int64_t tokens = numel(batch_shape);
  for (int64_t t = 0; t < tokens; ++t) {
    const int64_t p = positions[t];
    if (p < 0 || p >= max_positions)
      sdk::invalid("cpu_ref RoPEFwdOp: positions" + format_index(batch_shape, t) + " = " +
                   std::to_string(p) + " is outside [0, " + std::to_string(max_positions) +
                   "), the rows of cos_sin_cache");
  }
}

}  // namespace

template <class T, class P>
void rope(const T* x, const P* positions, const float* cos_sin_cache, T* y,
          std::span<const int64_t> batch_shape, int64_t heads, int64_t head_dim,
          int64_t max_positions, int64_t rot_dim, RopeLayout layout) {
  check_positions(positions, batch_shape, max_positions);
  const int64_t tokens = numel(batch_shape);
  const int64_t half = rot_dim / 2;
  for (int64_t t = 0; t < tokens; ++t) {
    const float* cos = cos_sin_cache + int64_t(positions[t]) * rot_dim;
    const float* sin = cos + half;
    for (int64_t h = 0; h < heads; ++h) {
      const T* xh = x + (t * heads + h) * head_dim;
      T* yh = y + (t * heads + h) * head_dim;
      for (int64_t i = 0; i < half; ++i) {
        const int64_t i1 = layout == RopeLayout::neox ? i : 2 * i;
        const int64_t i2 = layout == RopeLayout::neox ? i + half : 2 * i + 1;
        const double x1 = to_double(xh[i1]), x2 = to_double(xh[i2]);
        const double c = cos[i], s = sin[i];
        yh[i1] = from_double<T>(x1 * c - x2 * s);
        yh[i2] = from_double<T>(x2 * c + x1 * s);
      }
      for (int64_t d = rot_dim; d < head_dim; ++d) yh[d] = xh[d];
    }
  }
}

#define CPU_REF_INSTANTIATE(T, P)                                                  \
  template void rope<T, P>(const T*, const P*, const float*, T*,                   \
                           std::span<const int64_t>, int64_t, int64_t, int64_t, int64_t, \
                           RopeLayout);
CPU_REF_INSTANTIATE(float, int32_t)
CPU_REF_INSTANTIATE(float, int64_t)
CPU_REF_INSTANTIATE(f16, int32_t)
CPU_REF_INSTANTIATE(f16, int64_t)
CPU_REF_INSTANTIATE(bf16, int32_t)
CPU_REF_INSTANTIATE(bf16, int64_t)
#undef CPU_REF_INSTANTIATE

}  // namespace tileops::cpu_ref
