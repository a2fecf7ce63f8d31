// Loading: the real specs (from the directory and embedded), builtin() and its
// environment override, lookup and suggestions, metadata in manifest order.
#include "test_support.hpp"

#include <cstdlib>

using namespace tileops;
using namespace tileops::manifest;
using namespace tileops::manifest::test;

TEST_CASE("the real specs load, from the directory and embedded, with the same ops") {
  const Manifest& dir = real_specs();
  Manifest embedded = Manifest::load_embedded();
  REQUIRE(dir.ops().size() == embedded.ops().size());
  for (size_t k = 0; k < dir.ops().size(); ++k) CHECK(dir.ops()[k].name() == embedded.ops()[k].name());
  CHECK(dir.families() == std::vector<std::string>{"attention", "composite", "elementwise", "gemm", "norm", "reduction", "rope"});
  CHECK(dir.ops().size() >= 25);
  CHECK(validate(dir).empty());
}

TEST_CASE("builtin() is embedded unless TILEOPS_MANIFEST_DIR says otherwise") {
  // builtin() loads once per process; the override is read at that first call.
  ::setenv("TILEOPS_MANIFEST_DIR", TILEOPS_TEST_SPECS, 1);
  const Manifest& m = Manifest::builtin();
  ::unsetenv("TILEOPS_MANIFEST_DIR");
  CHECK(m.find("PackedFwdOp") != nullptr);
  CHECK(m.find("RMSNormFwdOp") == nullptr);
  CHECK(&Manifest::builtin() == &m);
}

TEST_CASE("find and nearest") {
  const Manifest& m = real_specs();
  const OpSpec* rms = m.find("RMSNormFwdOp");
  REQUIRE(rms);
  CHECK(rms->family() == "norm");
  CHECK(m.find(std::string_view("RMSNormFwdOpX").substr(0, 12)) == rms);
  CHECK(m.find("RmsNormFwdOp") == nullptr);
  CHECK(m.nearest("RmsNormFwdOp", 1) == std::vector<std::string>{"RMSNormFwdOp"});
  CHECK(m.nearest("SoftMaxFwdOp", 2)[0] == "SoftmaxFwdOp");
  CHECK(m.nearest("GemFwdOp", 1) == std::vector<std::string>{"GemmFwdOp"});
}

TEST_CASE("metadata in manifest order") {
  const OpSpec& rms = *real_specs().find("RMSNormFwdOp");
  CHECK(rms.implemented());
  CHECK(rms.ref_api() == "torch.nn.functional.rms_norm");
  REQUIRE(rms.params().size() == 2);
  CHECK(rms.params()[0].name == "normalized_shape");
  CHECK(rms.params()[0].kind == ParamKind::IntList);
  CHECK(rms.params()[0].required());
  CHECK(rms.params()[1].name == "eps");
  CHECK(rms.params()[1].nullable);
  CHECK(rms.params()[1].default_value == ParamValue(std::monostate{}));
  REQUIRE(rms.inputs().size() == 2);
  CHECK(rms.inputs()[1].name == "weight");
  CHECK(rms.inputs()[1].optional.value);
  CHECK(rms.inputs()[0].shape_text == "[*B, *normalized_shape]");
  CHECK(rms.outputs()[0].name == "y");
  CHECK(rms.roof_key() == "cuda_core");
  CHECK(rms.input_index("weight") == 1u);
  CHECK(rms.index_slot("T") == 1u);

  const OpSpec& fused = *real_specs().find("FusedAddRMSNormFwdOp");
  CHECK(fused.inputs()[1].mutated.value);
  CHECK(fused.outputs()[1].alias == 1);

  const OpSpec& gemm = *real_specs().find("GemmFwdOp");
  CHECK(gemm.roof_key() == "tensor_core");
  CHECK(gemm.inputs()[0].shape_text == "Mat[trans_a, M, K]");

  const OpSpec& gelu = *real_specs().find("GeluFwdOp");
  CHECK(gelu.params()[0].kind == ParamKind::Enum);
  CHECK(gelu.params()[0].enum_values == std::vector<std::string>{"none", "tanh"});
  CHECK(gelu.params()[0].kw_only);

  const OpSpec& mlp = *real_specs().find("SwiGLUMLPFwdOp");
  REQUIRE(mlp.is_composite());
  CHECK(mlp.composition().size() == 3);
  CHECK(mlp.composition()[0].op == "GemmFwdOp");
  CHECK(mlp.composition()[0].params[0] == std::pair<std::string, std::string>{"trans_b", "True"});
  CHECK(mlp.composition()[1].inputs == std::vector<std::string>{"gate_up"});

  REQUIRE(real_specs().type_families().size() == 1);
  CHECK(real_specs().type_families()[0].name == "Mat");
}
