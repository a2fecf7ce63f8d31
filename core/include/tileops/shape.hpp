#pragma once
// Shapes: an owning small vector (inline up to 6 dims, so typical shapes never touch
// the heap) and a non-owning description of a tensor for checks and builders.
#include <tileops/device.hpp>
#include <tileops/dtype.hpp>

#include <boost/container/small_vector.hpp>

#include <cstdint>
#include <span>
#include <string>

namespace tileops {

using Dims = boost::container::small_vector<int64_t, 6>;
using ShapeView = std::span<const int64_t>;

// Dims' iterators are not contiguous iterators to std::span: view them explicitly.
inline ShapeView view(const Dims& dims) { return {dims.data(), dims.size()}; }

int64_t numel(ShapeView shape);
// "[2048, 4096]", "[]".
std::string format_shape(ShapeView shape);

// What the manifest checks and what a builder sees: no data.
struct TensorDesc {
  Device device;
  DType dtype;
  ShapeView shape;
};

}  // namespace tileops
