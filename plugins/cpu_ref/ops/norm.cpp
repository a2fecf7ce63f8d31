// Builders of the norm family: RMSNorm, fused add + RMSNorm, LayerNorm, GroupNorm.
#include "kernels/norm.hpp"
#include "ops/builders.hpp"
#include "ops/common.hpp"

#include <algorithm>

namespace tileops::cpu_ref {

namespace {

// x [*B, *normalized_shape] as rows of prod(normalized_shape) elements.
struct Rows {
  int64_t rows = 1;
  int64_t cols = 1;
};

Rows normalized_rows(const Call& call, const Shape& normalized) {
  const Shape x = call.shape("x");
  if (normalized.empty()) call.invalid("needs a non-empty normalized_shape");
  if (normalized.size() > x.size() ||
      !std::equal(normalized.rbegin(), normalized.rend(), x.rbegin()))
    call.invalid("needs x's trailing dims equal to normalized_shape " +
                 sdk::format_shape(normalized) + ", got x of shape " + sdk::format_shape(x));
  const Shape batch(x.begin(), x.end() - std::ptrdiff_t(normalized.size()));
  return {numel(batch), numel(normalized)};
}

// The affine inputs (weight, bias) have x's dtype and the given shape.
void check_affine(const Call& call, std::initializer_list<const char*> names, ScalarType type,
                  const Shape& shape) {
  for (const char* name : names) {
    call.expect_dtype(name, type);
    call.expect_shape(name, shape);
  }
}

// residual += x; y = rms_norm(residual), with residual updated in place through its
// strides (a mutated input arrives as the caller has it).
template <class T>
void launch_fused_add_rms_norm(const Launch& l, Rows r, double eps) {
  const tileops_tensor& res = *l.input(1);
  T* residual = static_cast<T*>(res.data);
  const Shape shape = shape_of(res.spec);
  const Shape strides = strides_of(res), packed_strides = contiguous_strides(shape);
  if (strides == packed_strides) {
    fused_add_rms_norm(l.in<T>(0), residual, l.in<T>(2), l.out<T>(0), r.rows, r.cols, eps);
  } else {  // compute on a contiguous copy, then write it back
    std::vector<T> packed(static_cast<size_t>(numel(shape)));
    copy_strided<T>(residual, strides, packed.data(), packed_strides, shape);
    fused_add_rms_norm(l.in<T>(0), packed.data(), l.in<T>(2), l.out<T>(0), r.rows, r.cols, eps);
    copy_strided<T>(packed.data(), packed_strides, residual, strides, shape);
  }
  // residual_out is residual's alias; should the host hand a buffer of its own, fill it
  const tileops_tensor& alias = l.output(1);
  if (alias.data != res.data)
    copy_strided<T>(residual, strides, static_cast<T*>(alias.data), strides_of(alias), shape);
}

}  // namespace

KernelPtr build_rms_norm(const Args& args) {
  Call call(args, {"x", "weight"});
  const ScalarType type = call.dtype("x", kFloating);
  const Shape normalized = call.int_list("normalized_shape");
  const Rows r = normalized_rows(call, normalized);
  check_affine(call, {"weight"}, type, normalized);
  const std::optional<double> eps = call.params().get_optional_float("eps");
  return visit_floating(type, [&]<class T>(Tag<T>) {
    const double e = eps.value_or(machine_epsilon<T>());  // None: torch.finfo(x.dtype).eps
    return call.kernel(type, {output("y", type, call.shape("x"))}, [=](const Launch& l) {
      rms_norm(l.in<T>(0), l.in<T>(1), l.out<T>(0), r.rows, r.cols, e);
    });
  });
}

KernelPtr build_fused_add_rms_norm(const Args& args) {
  Call call(args, {"x", "residual", "weight"});
  const ScalarType type = call.dtype("x", kFloating);
  const Shape normalized = call.int_list("normalized_shape");
  const Rows r = normalized_rows(call, normalized);
  call.expect_dtype("residual", type);
  call.expect_shape("residual", call.shape("x"));
  check_affine(call, {"weight"}, type, normalized);
  call.allow_strided("residual");  // mutated: it arrives as the caller has it
  const double eps = call.params().get_float("eps");
  TensorExpect residual_out = output("residual_out", type, call.shape("x"));
  residual_out.strided_ok = true;  // the alias of residual
  return visit_floating(type, [&]<class T>(Tag<T>) {
    return call.kernel(type, {output("y", type, call.shape("x")), residual_out},
                       [=](const Launch& l) { launch_fused_add_rms_norm<T>(l, r, eps); });
  });
}

KernelPtr build_layer_norm(const Args& args) {
  Call call(args, {"x", "weight", "bias"});
  const ScalarType type = call.dtype("x", kFloating);
  const Shape normalized = call.int_list("normalized_shape");
  const Rows r = normalized_rows(call, normalized);
  check_affine(call, {"weight", "bias"}, type, normalized);
  const double eps = call.params().get_float("eps");
  return visit_floating(type, [&]<class T>(Tag<T>) {
    return call.kernel(type, {output("y", type, call.shape("x"))}, [=](const Launch& l) {
      layer_norm(l.in<T>(0), l.in<T>(1), l.in<T>(2), l.out<T>(0), r.rows, r.cols, eps);
    });
  });
}

KernelPtr build_group_norm(const Args& args) {
  Call call(args, {"x", "weight", "bias"});
  const ScalarType type = call.dtype("x", kFloating);
  const Shape x = call.shape("x");
  if (x.size() < 2) call.invalid("needs x of shape [N, C, *S], got " + sdk::format_shape(x));
  const int64_t groups = call.params().get_int("num_groups");
  const int64_t batch = x[0], channels = x[1];
  if (groups <= 0 || channels % groups != 0)
    call.invalid("needs num_groups > 0 dividing the " + std::to_string(channels) +
                 " channels, got " + std::to_string(groups));
  check_affine(call, {"weight", "bias"}, type, {channels});
  const int64_t spatial = numel(std::span(x).subspan(2));
  const double eps = call.params().get_float("eps");
  return visit_floating(type, [&]<class T>(Tag<T>) {
    return call.kernel(type, {output("y", type, x)}, [=](const Launch& l) {
      group_norm(l.in<T>(0), l.in<T>(1), l.in<T>(2), l.out<T>(0), batch, channels, spatial,
                 groups, eps);
    });
  });
}

}  // namespace tileops::cpu_ref
