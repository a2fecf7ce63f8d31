#pragma once
// Shape arithmetic every backend needs: element counts, row-major strides, and a tensor
// seen around one axis. Header-only, like the rest of the SDK.
#include <cstdint>
#include <span>
#include <vector>

namespace tileops::sdk {

inline int64_t numel(std::span<const int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Row-major strides (in elements) of a contiguous tensor of `shape`.
inline std::vector<int64_t> contiguous_strides(std::span<const int64_t> shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i];
  }
  return strides;
}

// A tensor seen as [outer, size, inner] around one axis (softmax, cumsum, argmax).
struct Axis {
  int64_t outer = 1;
  int64_t size = 1;
  int64_t inner = 1;
};

// The view of `shape` around axis `dim` (already normalised; rank 0 gives 1, 1, 1).
inline Axis axis_view(std::span<const int64_t> shape, int64_t dim) {
  Axis a;
  if (shape.empty()) return a;
  for (int64_t i = 0; i < dim; ++i) a.outer *= shape[size_t(i)];
  a.size = shape[size_t(dim)];
  for (size_t i = size_t(dim) + 1; i < shape.size(); ++i) a.inner *= shape[i];
  return a;
}

}  // namespace tileops::sdk
