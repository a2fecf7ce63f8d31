// Builder of RoPEFwdOp.
#include "kernels/rope.hpp"
#include "ops/builders.hpp"
#include "ops/common.hpp"

namespace tileops::cpu_ref {

namespace {

constexpr std::array kPositionTypes = {ScalarType::int32, ScalarType::int64};

RopeLayout layout_param(const Call& call) {
  const std::string_view s = call.params().get_string("layout");
  if (s == "neox") return RopeLayout::neox;
  if (s == "interleaved") return RopeLayout::interleaved;
  call.invalid("needs layout 'neox' or 'interleaved', got '" + std::string(s) + "'");
}

}  // namespace

KernelPtr build_rope(const Args& args) {
  Call call(args, {"x", "positions", "cos_sin_cache"});
  const ScalarType type = call.dtype("x", kFloating);
  const ScalarType pos_type = call.dtype("positions", kPositionTypes);
  call.dtype("cos_sin_cache", std::array{ScalarType::float32});
  const RopeLayout layout = layout_param(call);

  const Shape x = call.shape("x"), cache = call.shape("cos_sin_cache");
  if (x.size() < 2) call.invalid("needs x of shape [*B, H, D], got " + sdk::format_shape(x));
  const Shape batch(x.begin(), x.end() - 2);
  const int64_t heads = x[x.size() - 2], head_dim = x.back();
  call.expect_shape("positions", batch);
  if (cache.size() != 2)
    call.invalid("needs cos_sin_cache of shape [P, R], got " + sdk::format_shape(cache));
  const int64_t max_positions = cache[0], rot_dim = cache[1];
  if (rot_dim % 2 != 0 || rot_dim > head_dim)
    call.invalid("needs an even rotary dim R <= D = " + std::to_string(head_dim) +
                 ", got cos_sin_cache of shape " + sdk::format_shape(cache));

  const auto make = [&]<class T, class P>(Tag<T>, Tag<P>) {
    return call.kernel(type, {output("y", type, x)}, [=](const Launch& l) {
      rope(l.in<T>(0), l.in<P>(1), l.in<float>(2), l.out<T>(0), batch, heads, head_dim,
           max_positions, rot_dim, layout);
    });
  };
  return visit_floating(type, [&]<class T>(Tag<T> t) {
    return pos_type == ScalarType::int32 ? make(t, Tag<int32_t>{}) : make(t, Tag<int64_t>{});
  });
}

}  // namespace tileops::cpu_ref
