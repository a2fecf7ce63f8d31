// Builders of the attention family: GQA (SDPA semantics) and paged GQA decode.
#include "kernels/attention.hpp"
#include "ops/builders.hpp"
#include "ops/common.hpp"

#include <cmath>

namespace tileops::cpu_ref {

namespace {

// scale, or None: 1 / sqrt(head_dim), as torch.
double scale_param(const Call& call, int64_t head_dim) {
  return call.params().get_optional_float("scale").value_or(1.0 / std::sqrt(double(head_dim)));
}

void check_heads(const Call& call, int64_t q_heads, int64_t kv_heads) {
  if (kv_heads <= 0 || q_heads % kv_heads != 0)
    call.invalid("needs the query heads (" + std::to_string(q_heads) +
                 ") to be a multiple of the kv heads (" + std::to_string(kv_heads) + ")");
}

}  // namespace

KernelPtr build_gqa_attention(const Args& args) {
  Call call(args, {"q", "k", "v"});
  const ScalarType type = call.dtype("q", kFloating);
  call.expect_dtype("k", type);
  call.expect_dtype("v", type);
  const Shape q = call.shape("q"), k = call.shape("k");
  if (q.size() != 4 || k.size() != 4 || k[0] != q[0] || k[3] != q[3])
    call.invalid("needs q [Bs, Hq, Sq, D] and k [Bs, Hkv, Skv, D], got q of shape " +
                 sdk::format_shape(q) + " and k of shape " + sdk::format_shape(k));
  call.expect_shape("v", k);
  const AttentionShape s{q[0], q[1], k[1], q[2], k[2], q[3]};
  check_heads(call, s.q_heads, s.kv_heads);
  const bool is_causal = call.params().get_bool("is_causal");
  const double scale = scale_param(call, s.head_dim);
  return visit_floating(type, [&]<class T>(Tag<T>) {
    return call.kernel(type, {output("o", type, q)}, [=](const Launch& l) {
      gqa_attention(l.in<T>(0), l.in<T>(1), l.in<T>(2), l.out<T>(0), s, is_causal, scale);
    });
  });
}

KernelPtr build_gqa_decode_paged(const Args& args) {
  Call call(args, {"q", "k_cache", "v_cache", "block_table", "seq_lens"});
  const ScalarType type = call.dtype("q", kFloating);
  call.expect_dtype("k_cache", type);
  call.expect_dtype("v_cache", type);
  call.expect_dtype("block_table", ScalarType::int32);
  call.expect_dtype("seq_lens", ScalarType::int32);
  const Shape q = call.shape("q"), cache = call.shape("k_cache"), table = call.shape("block_table");
  if (q.size() != 3 || cache.size() != 4 || cache[3] != q[2])
    call.invalid("needs q [Bs, Hq, D] and k_cache [NB, BS, Hkv, D], got q of shape " +
                 sdk::format_shape(q) + " and k_cache of shape " + sdk::format_shape(cache));
  call.expect_shape("v_cache", cache);
  if (table.size() != 2 || table[0] != q[0])
    call.invalid("needs block_table [Bs, MB] with Bs = " + std::to_string(q[0]) + ", got " +
                 sdk::format_shape(table));
  call.expect_shape("seq_lens", Shape{q[0]});
  const PagedDecodeShape s{q[0], q[1], cache[2], q[2], cache[0], cache[1], table[1]};
  check_heads(call, s.q_heads, s.kv_heads);
  const double scale = scale_param(call, s.head_dim);
  return visit_floating(type, [&]<class T>(Tag<T>) {
    return call.kernel(type, {output("o", type, q)}, [=](const Launch& l) {
      gqa_decode_paged(l.in<T>(0), l.in<T>(1), l.in<T>(2), l.in<int32_t>(3), l.in<int32_t>(4),
                       l.out<T>(0), s, scale);
    });
  });
}

}  // namespace tileops::cpu_ref
