// Builders of the gemm family: GemmFwdOp (with transposes) and BmmFwdOp.
#include "kernels/gemm.hpp"
#include "ops/builders.hpp"
#include "ops/common.hpp"

namespace tileops::cpu_ref {

KernelPtr build_gemm(const Args& args) {
  Call call(args, {"a", "b"});
  const ScalarType type = call.dtype("a", kFloating);
  call.expect_dtype("b", type);
  const bool trans_a = call.params().get_bool("trans_a");
  const bool trans_b = call.params().get_bool("trans_b");
  const Shape a = call.shape("a"), b = call.shape("b");
  if (a.size() != 2 || b.size() != 2)
    call.invalid("needs 2-D a and b, got a of shape " + sdk::format_shape(a) + " and b of shape " +
                 sdk::format_shape(b));
  const int64_t m = trans_a ? a[1] : a[0], k = trans_a ? a[0] : a[1];
  const int64_t k_b = trans_b ? b[1] : b[0], n = trans_b ? b[0] : b[1];
  if (k != k_b)
    call.invalid("needs op(a) [M, K] and op(b) [K, N] to agree on K, got K = " +
                 std::to_string(k) + " and " + std::to_string(k_b) + " (a " +
                 sdk::format_shape(a) + ", trans_a " + (trans_a ? "true" : "false") + "; b " +
                 sdk::format_shape(b) + ", trans_b " + (trans_b ? "true" : "false") + ")");
  return visit_floating(type, [&]<class T>(Tag<T>) {
    return call.kernel(type, {output("y", type, {m, n})}, [=](const Launch& l) {
      gemm(l.in<T>(0), l.in<T>(1), l.out<T>(0), m, n, k, trans_a, trans_b);
    });
  });
}

KernelPtr build_bmm(const Args& args) {
  Call call(args, {"a", "b"});
  const ScalarType type = call.dtype("a", kFloating);
  call.expect_dtype("b", type);
  const Shape a = call.shape("a"), b = call.shape("b");
  if (a.size() != 3 || b.size() != 3 || a[0] != b[0] || a[2] != b[1])
    call.invalid("needs a [Bt, M, K] and b [Bt, K, N], got a of shape " + sdk::format_shape(a) +
                 " and b of shape " + sdk::format_shape(b));
  const int64_t batch = a[0], m = a[1], k = a[2], n = b[2];
  return visit_floating(type, [&]<class T>(Tag<T>) {
    return call.kernel(type, {output("y", type, {batch, m, n})}, [=](const Launch& l) {
      bmm(l.in<T>(0), l.in<T>(1), l.out<T>(0), batch, m, n, k);
    });
  });
}

}  // namespace tileops::cpu_ref
