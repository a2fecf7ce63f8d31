// Builders of the elementwise family: relu, gelu, silu, sigmoid, the gated
// silu_and_mul / gelu_and_mul, and the broadcasting add and mul.
#include "kernels/elementwise.hpp"
#include "ops/builders.hpp"
#include "ops/common.hpp"

#include <cmath>

namespace tileops::cpu_ref {

namespace {

GeluApprox approximate_param(const Call& call) {
  const std::string_view s = call.params().get_string("approximate");
  if (s == "none") return GeluApprox::none;
  if (s == "tanh") return GeluApprox::tanh;
  call.invalid("needs approximate 'none' or 'tanh', got '" + std::string(s) + "'");
}

// y = f(x) elementwise, x and y of one shape. `kernel(x, y, n)`.
template <Types kTypes, class Kernel>
KernelPtr build_unary(const Call& call, std::span<const ScalarType> types, Kernel kernel) {
  const ScalarType type = call.dtype("x", types);
  const Shape x = call.shape("x");
  const int64_t n = numel(x);
  return visit<kTypes>(type, [&]<class T>(Tag<T>) {
    return call.kernel(type, {output("y", type, x)},
                       [=](const Launch& l) { kernel(l.in<T>(0), l.out<T>(0), n); });
  });
}

// x [*B, 2 * N] -> y [*B, N]. `kernel(x, y, rows, half)`.
template <class Kernel>
KernelPtr build_gated(const Call& call, Kernel kernel) {
  const ScalarType type = call.dtype("x", kFloating);
  const Shape x = call.shape("x");
  if (x.empty() || x.back() % 2 != 0)
    call.invalid("needs x of shape [*B, 2 * N] (an even last dim), got " + sdk::format_shape(x));
  Shape y = x;
  y.back() /= 2;
  const int64_t half = y.back();
  const int64_t rows = numel(std::span(x).first(x.size() - 1));
  return visit_floating(type, [&]<class T>(Tag<T>) {
    return call.kernel(type, {output("y", type, y)},
                       [=](const Launch& l) { kernel(l.in<T>(0), l.out<T>(0), rows, half); });
  });
}

// numpy broadcasting of two shapes, or nullopt when they do not broadcast.
std::optional<Shape> broadcast(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()));
  for (size_t i = 0; i < out.size(); ++i) {  // i counts from the right
    const int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[out.size() - 1 - i] = da == 1 ? db : da;
  }
  return out;
}

// y = f(a, b) under broadcasting. `kernel(a, a_shape, b, b_shape, y, y_shape)`.
template <Types kTypes, class Kernel>
KernelPtr build_binary(const Call& call, std::span<const ScalarType> types, Kernel kernel) {
  const ScalarType type = call.dtype("a", types);
  call.expect_dtype("b", type);
  const Shape a = call.shape("a"), b = call.shape("b");
  const std::optional<Shape> y = broadcast(a, b);
  if (!y)
    call.invalid("cannot broadcast a of shape " + sdk::format_shape(a) + " with b of shape " +
                 sdk::format_shape(b));
  return visit<kTypes>(type, [&]<class T>(Tag<T>) {
    return call.kernel(type, {output("y", type, *y)}, [=, y = *y](const Launch& l) {
      kernel(l.in<T>(0), a, l.in<T>(1), b, l.out<T>(0), y);
    });
  });
}

// add's alpha: any float for floating dtypes; an integer for integer ones, as in torch.
Alpha alpha_param(const Call& call, bool integral) {
  const tileops_param& p = call.params().at("alpha");
  Alpha alpha;
  alpha.real = call.params().get_float("alpha");
  if (!integral) return alpha;
  if (p.kind == TILEOPS_PARAM_INT) {
    alpha.integral = p.u.i;
  } else if (std::trunc(alpha.real) == alpha.real && std::fabs(alpha.real) < 0x1p63) {
    alpha.integral = int64_t(alpha.real);
  } else {
    call.invalid("needs an integral alpha for integer tensors, got " + std::to_string(alpha.real));
  }
  return alpha;
}

}  // namespace

KernelPtr build_relu(const Args& args) {
  return build_unary<Types::any>(Call(args, {"x"}), kFloatingOrInt,
                                 [](const auto* x, auto* y, int64_t n) { relu(x, y, n); });
}

KernelPtr build_gelu(const Args& args) {
  const Call call(args, {"x"});
  const GeluApprox approx = approximate_param(call);
  return build_unary<Types::floating>(
      call, kFloating, [=](const auto* x, auto* y, int64_t n) { gelu(x, y, n, approx); });
}

KernelPtr build_silu(const Args& args) {
  return build_unary<Types::floating>(Call(args, {"x"}), kFloating,
                                      [](const auto* x, auto* y, int64_t n) { silu(x, y, n); });
}

KernelPtr build_sigmoid(const Args& args) {
  return build_unary<Types::floating>(
      Call(args, {"x"}), kFloating, [](const auto* x, auto* y, int64_t n) { sigmoid(x, y, n); });
}

KernelPtr build_silu_and_mul(const Args& args) {
  return build_gated(Call(args, {"x"}), [](const auto* x, auto* y, int64_t rows, int64_t half) {
    silu_and_mul(x, y, rows, half);
  });
}

KernelPtr build_gelu_and_mul(const Args& args) {
  const Call call(args, {"x"});
  const GeluApprox approx = approximate_param(call);
  return build_gated(call, [=](const auto* x, auto* y, int64_t rows, int64_t half) {
    gelu_and_mul(x, y, rows, half, approx);
  });
}

KernelPtr build_add(const Args& args) {
  const Call call(args, {"a", "b"});
  const ScalarType type = call.dtype("a", kFloatingOrInt);
  const bool integral = type == ScalarType::int32 || type == ScalarType::int64;
  const Alpha alpha = alpha_param(call, integral);
  return build_binary<Types::any>(call, kFloatingOrInt,
                                  [=](const auto* a, const Shape& as, const auto* b,
                                      const Shape& bs, auto* y, const Shape& ys) {
                                    add(a, as, b, bs, y, ys, alpha);
                                  });
}

KernelPtr build_mul(const Args& args) {
  return build_binary<Types::floating>(
      Call(args, {"a", "b"}), kFloating,
      [](const auto* a, const Shape& as, const auto* b, const Shape& bs, auto* y,
         const Shape& ys) { mul(a, as, b, bs, y, ys); });
}

}  // namespace tileops::cpu_ref
