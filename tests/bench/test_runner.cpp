// The case loop on the CPU: cpu_ref cases verified and timed with the host timer, cases
// over --max-bytes skipped, and a deliberately wrong kernel (registered in-process for
// target "forgetful") reported as failed and never timed.
#include "report.hpp"
#include "runner.hpp"

#include <tileops/backend.hpp>
#include <tileops/errors.hpp>

#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <new>

using namespace tileops;
using namespace tileops::bench;

namespace {

// ---- "forgetful": a ReluFwdOp that copies x and forgets the max(x, 0) ------------------

tileops_host_api g_host;

int32_t claims_nothing(void*, const tileops_device*) { return 0; }  // used only when named

tileops_status copy_input(void*, const tileops_tensor* const* inputs, size_t, const tileops_tensor* const* outputs,
                          size_t, void*, tileops_error*) {
  const tileops_tensor_spec& spec = inputs[0]->spec;
  size_t bytes = spec.dtype.bits / 8;
  for (int32_t d = 0; d < spec.ndim; ++d) bytes *= size_t(spec.shape[d]);
  std::memcpy(outputs[0]->data, inputs[0]->data, bytes);
  return TILEOPS_OK;
}

void release_nothing(void*) {}

tileops_status build_forgetful(void*, const char*, const tileops_tensor_spec* const*, size_t, const tileops_param*,
                               size_t, tileops_kernel* out, tileops_error*) {
  out->self = nullptr;
  out->launch = copy_input;
  out->release = release_nothing;
  return TILEOPS_OK;
}

tileops_status forgetful_entry(const tileops_host_api* host, tileops_registrar* reg, tileops_plugin_info* info,
                               tileops_error* err) {
  g_host = *host;
  info->name = "forgetful";
  info->version = "1.0.0";
  info->build_id = "test";
  if (tileops_status st = host->register_detector(reg, "forgetful", claims_nothing, nullptr, err)) return st;
  return host->register_kernel_builder(reg, "ReluFwdOp", "forgetful", build_forgetful, nullptr, err);
}

void install_forgetful() {
  static const bool installed = [] {
    load_plugins();
    return load_plugin_entry("forgetful", forgetful_entry);
  }();
  REQUIRE(installed);
}

// ReluFwdOp's decode row: x [64, 36864] in float16 and bfloat16, 9.4 MB moved.
RunOptions relu_decode(const std::string& target) {
  RunOptions o;
  o.selection.ops = {"ReluFwdOp"};
  o.selection.labels = {"opt-66b-ffn-decode-b64"};
  o.device = "cpu";
  o.target = target;
  o.warmup = 1;
  o.reps = 3;
  o.rotate = 2;
  o.prepare_threads = 2;
  return o;
}

}  // namespace

TEST_CASE("on the CPU, cases run through cpu_ref: verified, then timed with the host clock") {
  const BenchResult r = run_bench(relu_decode("cpu_ref"));
  CHECK(r.info.timing == "host");
  CHECK(r.info.device == "cpu");
  CHECK(r.info.flush_bytes == 0);
  CHECK(r.info.max_bytes == 64.0 * (1 << 20));  // the host default
  REQUIRE(r.cases.size() == 2);
  for (const CaseResult& c : r.cases) {
    INFO(c.case_id << ": " << c.reason);
    CHECK(c.status == CaseStatus::ok);
    CHECK(c.target == "cpu_ref");
    REQUIRE(c.rel_error);
    CHECK(*c.rel_error == 0);
    REQUIRE(c.time);
    CHECK(c.time->samples == 3);
    CHECK(c.time->p10_us <= c.time->median_us);
    CHECK(c.time->median_us <= c.time->p90_us);
    CHECK(c.baseline == "copy");
    REQUIRE(c.baseline_time);
    CHECK(c.baseline_time->samples == 3);
    CHECK(c.vs_baseline);
    CHECK(c.cost.bytes == 2.0 * 64 * 36864 * 2);
  }
}

TEST_CASE("a kernel that fails verification is reported failed and never timed") {
  install_forgetful();
  const BenchResult r = run_bench(relu_decode("forgetful"));
  REQUIRE(r.cases.size() == 2);
  for (const CaseResult& c : r.cases) {
    INFO(c.case_id);
    CHECK(c.status == CaseStatus::failed);
    CHECK(c.target == "forgetful");
    CHECK(c.reason.find("output y: relative error") != std::string::npos);
    CHECK(c.reason.find("against cpu_ref") != std::string::npos);
    REQUIRE(c.rel_error);
    CHECK(*c.rel_error > 0.1);  // x copied: every negative element wrong
    CHECK_FALSE(c.time);
    CHECK_FALSE(c.baseline_time);
    CHECK_FALSE(c.efficiency);
  }
  CHECK(r.count(CaseStatus::failed) == 2);
  const std::string md = markdown_report(r);
  CHECK(md.find("| ReluFwdOp | opt-66b-ffn-decode-b64-float16 | forgetful | failed | — |") != std::string::npos);
  CHECK(md.find("## Not timed") != std::string::npos);
}

TEST_CASE("cases moving more than --max-bytes are skipped before any work") {
  RunOptions o = relu_decode("cpu_ref");
  o.selection.labels = {"mem-8192x8192"};  // 512 MiB and more each
  const BenchResult r = run_bench(o);
  REQUIRE(r.cases.size() == 3);
  for (const CaseResult& c : r.cases) {
    CHECK(c.status == CaseStatus::skipped);
    CHECK(c.reason.find("over --max-bytes 67108864") != std::string::npos);
    CHECK_FALSE(c.rel_error);
  }
  o.max_bytes = 1e6;
  o.selection.labels = {"opt-66b-ffn-decode-b64"};
  CHECK(run_bench(o).count(CaseStatus::skipped) == 2);
}

TEST_CASE("selection errors name what is wrong") {
  RunOptions o = relu_decode("cpu_ref");
  o.selection.ops = {"ReluFwOp"};
  CHECK_THROWS_WITH_AS(run_bench(o), doctest::Contains("did you mean ReluFwdOp"), ValueError);
  o.selection.ops = {};
  o.selection.families = {"norms"};
  CHECK_THROWS_WITH_AS(run_bench(o), doctest::Contains("unknown family 'norms'"), ValueError);
  o.selection.families = {"norm"};
  o.selection.labels = {"no-such-row"};
  CHECK_THROWS_WITH_AS(run_bench(o), doctest::Contains("'no-such-row'"), ValueError);
}
