#pragma once
// Shapes and element walks shared by the kernels. Shapes and strides count elements;
// an empty shape is a rank-0 tensor of one element.
#include <tileops/sdk/shape.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <tuple>
#include <vector>

namespace tileops::cpu_ref {

using Shape = std::vector<int64_t>;

using sdk::Axis;
using sdk::axis_view;
using sdk::contiguous_strides;
using sdk::numel;

// Visits every index of `shape` in row-major order and calls f(o[0], ..., o[N-1]) with
// the element offset the index has under each of the N stride arrays (each as long as
// `shape`). A stride of 0 repeats an element: that is how broadcasting and reducing
// walks are written.
template <size_t N, class F>
void for_each_offset(std::span<const int64_t> shape,
                     const std::array<std::span<const int64_t>, N>& strides, F&& f) {
  const size_t rank = shape.size();
  if (numel(shape) == 0) return;
  std::array<int64_t, N> base{};
  if (rank == 0) {
    std::apply(f, base);
    return;
  }
  const int64_t inner = shape[rank - 1];
  std::array<int64_t, N> step{};
  for (size_t k = 0; k < N; ++k) step[k] = strides[k][rank - 1];
  std::vector<int64_t> index(rank, 0);  // the outer dims' odometer (last entry unused)
  for (;;) {
    std::array<int64_t, N> off = base;
    for (int64_t i = 0; i < inner; ++i) {
      std::apply(f, off);
      for (size_t k = 0; k < N; ++k) off[k] += step[k];
    }
    // advance the odometer over dims [0, rank - 1)
    size_t d = rank - 1;
    for (;;) {
      if (d == 0) return;
      --d;
      ++index[d];
      for (size_t k = 0; k < N; ++k) base[k] += strides[k][d];
      if (index[d] < shape[d]) break;
      for (size_t k = 0; k < N; ++k) base[k] -= strides[k][d] * shape[d];
      index[d] = 0;
    }
  }
}

// Copies the elements of `shape` from src, laid out by src_strides, to dst, laid out by
// dst_strides.
template <class T>
void copy_strided(const T* src, std::span<const int64_t> src_strides, T* dst,
                  std::span<const int64_t> dst_strides, std::span<const int64_t> shape) {
  for_each_offset<2>(shape, {src_strides, dst_strides},
                     [&](int64_t s, int64_t d) { dst[d] = src[s]; });
}

}  // namespace tileops::cpu_ref
