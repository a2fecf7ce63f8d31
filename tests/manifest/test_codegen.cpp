// The generated op classes compile and pass params, inputs and outputs in manifest
// order (against the stand-in Op of codegen_stub/).
#include <tileops/ops/all.hpp>

#include <doctest/doctest.h>

using namespace tileops;

namespace {
const ParamValue& param(const char* name) {
  for (const Param& p : last_call().params)
    if (p.name == name) return p.value;
  FAIL("no param " << name);
  throw;
}
}  // namespace

TEST_CASE("constructors pass params in manifest order, defaults filled") {
  norm::RMSNormFwdOp rms({4096});
  CHECK(last_call().op == "RMSNormFwdOp");
  REQUIRE(last_call().params.size() == 2);
  CHECK(last_call().params[0].name == "normalized_shape");
  CHECK(param("normalized_shape") == ParamValue(std::vector<int64_t>{4096}));
  CHECK(param("eps") == ParamValue(std::monostate{}));
  CHECK_FALSE(last_call().target.has_value());

  norm::RMSNormFwdOp with_eps({8, 16}, 1e-6, std::string("builtin"));
  CHECK(param("eps") == ParamValue(1e-6));
  CHECK(last_call().target == Target("builtin"));

  norm::FusedAddRMSNormFwdOp fused({4096});
  CHECK(param("eps") == ParamValue(1e-6));

  gemm::GemmFwdOp gemm(false, true);
  CHECK(param("trans_a") == ParamValue(false));
  CHECK(param("trans_b") == ParamValue(true));

  elementwise::GeluFwdOp gelu;
  CHECK(param("approximate") == ParamValue(std::string("none")));

  reduction::SumFwdOp sum(std::vector<int64_t>{0, -1}, true);
  CHECK(param("dim") == ParamValue(std::vector<int64_t>{0, -1}));
  CHECK(param("keepdim") == ParamValue(true));
  reduction::CumsumFwdOp cumsum(-1);
  CHECK(param("dim") == ParamValue(int64_t(-1)));
  attention::GroupedQueryAttentionFwdOp gqa(true, 0.125);
  CHECK(param("scale") == ParamValue(0.125));
  elementwise::ReluFwdOp relu;
  CHECK(last_call().params.empty());
}

TEST_CASE("calls pass every input (omitted optional ones undefined) and one slot per output") {
  norm::RMSNormFwdOp rms({4096});
  Tensor x;
  Tensor y = rms(x);
  CHECK(last_call().inputs_defined == std::vector<bool>{false, false});
  CHECK(last_call().outputs == 1);
  (void)y;

  norm::FusedAddRMSNormFwdOp fused({4096});
  auto [out, residual] = fused(x, x);
  CHECK(last_call().inputs_defined.size() == 3);
  CHECK(last_call().outputs == 2);

  rope::RoPEFwdOp rope;
  (void)rope(x, x, x);
  CHECK(last_call().inputs_defined.size() == 3);
  composite::SwiGLUMLPFwdOp mlp;
  (void)mlp(x, x, x);
  CHECK(last_call().outputs == 1);
}
