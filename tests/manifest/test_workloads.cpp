// Workload rows expand into cases: ids, params, input shapes and dtypes, value ranges;
// every row of every spec instantiates.
#include "test_support.hpp"

using namespace tileops;
using namespace tileops::manifest;
using namespace tileops::manifest::test;

namespace {

std::vector<int64_t> shape_of(const std::optional<OwnedTensorDesc>& t) { return {t->shape.begin(), t->shape.end()}; }

const WorkloadCase& find_case(const std::vector<WorkloadCase>& cases, const std::string& id) {
  for (const auto& c : cases)
    if (c.id == id) return c;
  FAIL("no case " << id);
  throw;
}

}  // namespace

TEST_CASE("every row of every real spec instantiates and passes the checker") {
  size_t total = 0;
  for (const OpSpec& op : real_specs().ops()) {
    CAPTURE(op.name());
    std::vector<WorkloadCase> cases;
    REQUIRE_NOTHROW(cases = op.workload_cases());
    CHECK_FALSE(cases.empty());
    total += cases.size();
    for (const WorkloadCase& c : cases) CHECK(c.inputs.size() == op.inputs().size());
  }
  CHECK(total > 200);
  for (const OpSpec& op : test_specs().ops()) CHECK_NOTHROW(op.workload_cases());
}

TEST_CASE("RMSNorm rows: ids, params, shapes, omitted weight") {
  auto cases = real_specs().find("RMSNormFwdOp")->workload_cases();
  const WorkloadCase& prefill = find_case(cases, "llama3-8b-prefill-float16");
  CHECK(prefill.label == "llama3-8b-prefill");
  CHECK(prefill.params.size() == 2);
  CHECK(prefill.params[0].name == "normalized_shape");
  CHECK(prefill.params[1].value == ParamValue(1e-5));
  CHECK(shape_of(prefill.inputs[0]) == std::vector<int64_t>{4096, 4096});
  CHECK(prefill.inputs[0]->dtype == dtypes::float16);
  CHECK(shape_of(prefill.inputs[1]) == std::vector<int64_t>{4096});
  CHECK(prefill.indices[0].name == "B");
  CHECK(prefill.indices[1].value == ParamValue(dtypes::float16));
  CHECK(prefill.values[0].distribution == ValueRange::Distribution::Normal);

  const WorkloadCase& mem = find_case(cases, "mem-8192x8192-float32");
  CHECK_FALSE(mem.inputs[1].has_value());  // weight not in `some`
  CHECK(shape_of(find_case(cases, "qwen2.5-7b-prefill-bfloat16").inputs[0]) == std::vector<int64_t>{4, 2048, 3584});
}

TEST_CASE("shapes solved from the row: affine items, type families, dtype params and ranges") {
  auto silu = real_specs().find("SiluAndMulFwdOp")->workload_cases();
  CHECK(shape_of(find_case(silu, "llama3-8b-prefill-float16").inputs[0]) == std::vector<int64_t>{4096, 28672});

  auto gemm = real_specs().find("GemmFwdOp")->workload_cases();
  const WorkloadCase& wgrad = find_case(gemm, "llama3-8b-gate-up-wgrad-bfloat16");
  CHECK(shape_of(wgrad.inputs[0]) == std::vector<int64_t>{8192, 28672});  // trans_a: [K, M]
  CHECK(shape_of(wgrad.inputs[1]) == std::vector<int64_t>{8192, 4096});

  auto rope = real_specs().find("RoPEFwdOp")->workload_cases();
  const WorkloadCase& q = find_case(rope, "llama3-8b-k-decode-b64-bfloat16-int32");
  CHECK(q.inputs[1]->dtype == dtypes::int32);
  CHECK(q.inputs[2]->dtype == dtypes::float32);
  CHECK(q.values[1].distribution == ValueRange::Distribution::Uniform);
  CHECK(q.values[1].low == 0);
  CHECK(q.values[1].high == 8192);  // positions in [0, P)

  auto paged = real_specs().find("GroupedQueryAttentionDecodePagedFwdOp")->workload_cases();
  const WorkloadCase& p = find_case(paged, "llama3-8b-b64-ctx4k-bfloat16");
  CHECK(p.values[4].low == 255 * 16 + 1);
  CHECK(p.values[4].high == 256 * 16 + 1);

  auto meta = test_specs().find("HostMetaFwdOp")->workload_cases();
  const WorkloadCase& scaled = find_case(meta, "scaled-float16-int32-float32");
  CHECK(scaled.params.back().name == "out_dtype");
  CHECK(scaled.params.back().value == ParamValue(dtypes::float32));
  CHECK(scaled.inputs[3].has_value());  // scale: required when has_scale
  CHECK(scaled.values[1].low == 1);     // lens: values {low: 1, high: D + 1}
  CHECK(scaled.values[1].high == 17);
  const WorkloadCase& plain = find_case(meta, "plain-float32-int64");
  CHECK_FALSE(plain.inputs[3].has_value());
}

TEST_CASE("a row that does not instantiate names the op, the row and the problem") {
  Manifest bad = Manifest::load_dir(std::string(TILEOPS_BAD_SPECS) + "/row_does_not_instantiate");
  CHECK_THROWS_WITH(bad.find("XFwdOp")->workload_cases(),
                    doctest::Contains("XFwdOp: workload row 'no-n': input 'x' shape [M, N]: N has no value ("));
}
