// The JSON export the docs site reads.
#include "test_support.hpp"

#include <tileops/manifest/json.hpp>

using namespace tileops::manifest;
using namespace tileops::manifest::test;

TEST_CASE("manifest_json lists ops with their signature metadata and case ids") {
  std::string text = manifest_json(real_specs(), -1);
  CHECK(text.find("\"name\":\"RMSNormFwdOp\"") != std::string::npos);
  CHECK(text.find("{\"default\":null,\"kw_only\":false,\"name\":\"eps\",\"type\":\"float | None\"}") != std::string::npos);
  CHECK(text.find("\"shape\":\"Mat[trans_a, M, K]\"") != std::string::npos);
  CHECK(text.find("\"alias\":\"residual\"") != std::string::npos);
  CHECK(text.find("\"llama3-8b-prefill-float16\"") != std::string::npos);
  CHECK(text.find("\"composition\":[\"GemmFwdOp\",\"SiluAndMulFwdOp\",\"GemmFwdOp\"]") != std::string::npos);
  CHECK(text.find("\"type_families\":[\"Mat\"]") != std::string::npos);
  std::string meta = manifest_json(test_specs(), -1);
  CHECK(meta.find("\"optional\":\"not has_scale\"") != std::string::npos);
  CHECK(meta.find("\"host\":true") != std::string::npos);
}
