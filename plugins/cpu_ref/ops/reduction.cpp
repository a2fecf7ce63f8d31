// Builders of the reduction family: softmax, log_softmax, sum, mean, amax, argmax, cumsum.
#include "kernels/reduction.hpp"
#include "ops/builders.hpp"
#include "ops/common.hpp"

#include <algorithm>

namespace tileops::cpu_ref {

namespace {

constexpr std::array kCumsumTypes = {ScalarType::float32, ScalarType::float16,
                                     ScalarType::bfloat16, ScalarType::int64};

// torch's reduced shape: the axes in `axes` dropped, or kept as 1 with keepdim.
Shape reduced_shape(const Shape& shape, const std::vector<int64_t>& axes, bool keepdim) {
  Shape out;
  for (size_t d = 0; d < shape.size(); ++d) {
    const bool reduced = std::find(axes.begin(), axes.end(), int64_t(d)) != axes.end();
    if (!reduced)
      out.push_back(shape[d]);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

// The single-axis ops whose output is shaped like x: softmax, log_softmax, cumsum.
// `kernel(x, y, axis)` is called with typed pointers.
template <Types kTypes, class Kernel>
KernelPtr build_along_axis(const Args& args, std::span<const ScalarType> types, Kernel kernel) {
  Call call(args, {"x"});
  const ScalarType type = call.dtype("x", types);
  const Shape x = call.shape("x");
  const int64_t dim = call.axis("dim", call.params().get_int("dim"), int64_t(x.size()));
  const Axis axis = axis_view(x, dim);
  return visit<kTypes>(type, [&]<class T>(Tag<T>) {
    return call.kernel(type, {output("y", type, x)}, [=](const Launch& l) {
      kernel(l.in<T>(0), l.out<T>(0), axis);
    });
  });
}

// The multi-axis reductions: sum, mean, amax. `kernel(x, y, shape, axes)`. A maximum
// (`of_elements`) needs an element to reduce into each result, as torch.
template <Types kTypes, class Kernel>
KernelPtr build_over_axes(const Args& args, std::span<const ScalarType> types, Kernel kernel,
                          bool of_elements = false) {
  Call call(args, {"x"});
  const ScalarType type = call.dtype("x", types);
  const Shape x = call.shape("x");
  const std::vector<int64_t> axes = call.axes("dim", int64_t(x.size()));
  const Shape y = reduced_shape(x, axes, call.params().get_bool("keepdim"));
  if (of_elements && numel(x) == 0 && numel(y) > 0)
    call.invalid("cannot reduce x of shape " + sdk::format_shape(x) +
                 " over an empty axis: the maximum of no element is undefined");
  return visit<kTypes>(type, [&]<class T>(Tag<T>) {
    return call.kernel(type, {output("y", type, y)}, [=](const Launch& l) {
      kernel(l.in<T>(0), l.out<T>(0), x, axes);
    });
  });
}

}  // namespace

KernelPtr build_softmax(const Args& args) {
  return build_along_axis<Types::floating>(
      args, kFloating, [](const auto* x, auto* y, Axis a) { softmax(x, y, a); });
}

KernelPtr build_log_softmax(const Args& args) {
  return build_along_axis<Types::floating>(
      args, kFloating, [](const auto* x, auto* y, Axis a) { log_softmax(x, y, a); });
}

KernelPtr build_cumsum(const Args& args) {
  return build_along_axis<Types::any>(
      args, kCumsumTypes, [](const auto* x, auto* y, Axis a) { cumsum(x, y, a); });
}

KernelPtr build_sum(const Args& args) {
  return build_over_axes<Types::floating>(
      args, kFloating, [](const auto* x, auto* y, const Shape& shape, const Shape& axes) {
        sum(x, y, shape, axes);
      });
}

KernelPtr build_mean(const Args& args) {
  return build_over_axes<Types::floating>(
      args, kFloating, [](const auto* x, auto* y, const Shape& shape, const Shape& axes) {
        mean(x, y, shape, axes);
      });
}

KernelPtr build_amax(const Args& args) {
  return build_over_axes<Types::any>(
      args, kFloatingOrInt,
      [](const auto* x, auto* y, const Shape& shape, const Shape& axes) {
        amax(x, y, shape, axes);
      },
      true);
}

KernelPtr build_argmax(const Args& args) {
  Call call(args, {"x"});
  const ScalarType type = call.dtype("x", kFloatingOrInt);
  const Shape x = call.shape("x");
  const int64_t rank = int64_t(x.size());
  const bool keepdim = call.params().get_bool("keepdim");
  const std::optional<int64_t> dim = call.params().get_optional_int("dim");
  Axis axis{1, numel(x), 1};  // dim None: the flattened input
  Shape y;                    // dim None: a scalar, or all 1s with keepdim
  if (dim) {
    const int64_t d = call.axis("dim", *dim, rank);
    axis = axis_view(x, d);
    y = rank == 0 ? Shape{} : reduced_shape(x, {d}, keepdim);
  } else if (keepdim) {
    y.assign(x.size(), 1);
  }
  if (axis.size == 0)  // torch: the reduced axis (or the input, for None) is non-empty
    call.invalid("cannot take the argmax of x of shape " + sdk::format_shape(x) +
                 " over an empty axis");
  return visit_any(type, [&]<class T>(Tag<T>) {
    return call.kernel(type, {output("y", ScalarType::int64, y)}, [=](const Launch& l) {
      argmax(l.in<T>(0), l.out<int64_t>(0), axis);
    });
  });
}

}  // namespace tileops::cpu_ref
