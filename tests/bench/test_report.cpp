// The report formats, from a hand-made result: Markdown (header facts, one row per case,
// reasons), CSV (header, quoting), JSON (schema tileops.bench/1) and the SVG plot.
#include "report.hpp"

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

#include <sstream>

using namespace tileops;
using namespace tileops::bench;

namespace {

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// One case timed, one that failed verification, one skipped: on an imaginary H200 run.
BenchResult sample() {
  BenchResult r;
  RunInfo& info = r.info;
  info.date = "2030-01-02T03:04:05Z";
  info.command = "tileops bench --family norm --report docs/perf/norm.md";
  info.device = "cuda:0";
  info.device_name = "NVIDIA H200";
  info.driver = "580.65.06 (CUDA 13.0)";
  info.timing = "cupti";
  info.roofs = Roofs{"h200", 4.0, {{"cuda_core_fp32_tflops", 60}, {"tensor_core_bf16_tflops", 800}}, true};
  info.warmup = 10;
  info.reps = 100;
  info.rotate = 3;
  info.flush_bytes = size_t(128) << 20;
  info.max_bytes = 64.0 * (1 << 20);
  info.tileops_version = "0.1.0";

  CaseResult ok;
  ok.op = "RMSNormFwdOp";
  ok.family = "norm";
  ok.case_id = "llama3-8b-decode-bfloat16";
  ok.label = "llama3-8b-decode";
  ok.inputs = "x: bfloat16[64, 4096], weight: bfloat16[4096]";
  ok.params = {{"normalized_shape", ints({4096})}, {"eps", 1e-5}, {"elementwise_affine", true},
               {"approximate", "tanh"}, {"scales", floats({0.5, 2})}, {"out_dtype", dtypes::float16},
               {"bias", none()}};
  ok.shapes = {InputShape{"x", dtypes::bfloat16, {64, 4096}}, InputShape{"weight", dtypes::bfloat16, {4096}},
               std::nullopt};
  ok.target = "builtin";
  ok.cost = {1048576, 1056768, "cuda_core", dtypes::bfloat16};
  ok.rel_error = 0.004;
  ok.tolerance = 0.01;
  ok.time = Spread{0.33024, 0.30, 0.40, 100};
  ok.floor = Floor{0.264192, false, "cuda_core_fp32_tflops"};
  ok.efficiency = 0.8;
  ok.verdict = "at ceiling";
  ok.baseline = "copy";
  ok.baseline_time = Spread{0.30, 0.29, 0.31, 100};
  ok.vs_baseline = 0.30 / 0.33024;

  CaseResult failed = ok;
  failed.case_id = "llama3-8b-decode-float16";
  failed.status = CaseStatus::failed;
  failed.reason = "output y: relative error 1 > 0.001 (float16), says \"cpu_ref\" | pipe";
  failed.rel_error = 1;
  failed.tolerance = 0.001;
  failed.time.reset();
  failed.efficiency.reset();
  failed.verdict.clear();
  failed.baseline.clear();
  failed.baseline_time.reset();
  failed.vs_baseline.reset();

  CaseResult skipped = failed;
  skipped.case_id = "mem-8192x8192-float32";
  skipped.status = CaseStatus::skipped;
  skipped.reason = "moves 536870912 bytes, over --max-bytes 67108864";
  skipped.rel_error.reset();
  skipped.target.clear();

  r.cases = {ok, failed, skipped};
  return r;
}

}  // namespace

TEST_CASE("the Markdown report says when, where, how, and what was compared") {
  const std::string md = markdown_report(sample());
  CHECK(md.starts_with("# tileops bench: NVIDIA H200 (cuda:0)\n"));
  CHECK(md.find("| date | 2030-01-02T03:04:05Z |") != std::string::npos);
  CHECK(md.find("| device | cuda:0: NVIDIA H200 |") != std::string::npos);
  CHECK(md.find("| driver | 580.65.06 (CUDA 13.0) |") != std::string::npos);
  CHECK(md.find("| command | `tileops bench --family norm --report docs/perf/norm.md` |") != std::string::npos);
  CHECK(md.find("| timing | `cupti`: median, p10 and p90 of 100 calls after 10 warm-up calls; 3 input sets called in "
                "turn; L2 flushed before every call by a 128 MiB write |") != std::string::npos);
  CHECK(md.find("| compared with | `copy`: a device-to-device copy of the same bytes") != std::string::npos);
  CHECK(md.find("| verification | every case against `cpu_ref`") != std::string::npos);
  CHECK(md.find("profile `h200` (calibrated): bandwidth 4 TB/s; peaks cuda_core_fp32_tflops 60, "
                "tensor_core_bf16_tflops 800") != std::string::npos);
  CHECK(md.find("| cases | 3: 1 ok, 1 failed, 1 skipped (moving over 64 MiB) |") != std::string::npos);
}

TEST_CASE("the Markdown table has one row per case, numbers as computed by hand") {
  const std::string md = markdown_report(sample());
  // 1056768 B / 0.33024 us = 3.200 TB/s; 1048576 FLOP / 0.33024 us = 3.175 TFLOP/s;
  // baseline 0.30 / 0.33024 = 0.91.
  CHECK(md.find("| RMSNormFwdOp | llama3-8b-decode-bfloat16 | builtin | ok | 0.33 | 0.30 | 0.40 | 1.06 | 0.00105 | "
                "3.200 | 3.18 | 0.26 | memory | 0.80 | at ceiling | copy | 0.30 | 0.91 | 4.0e-03 |\n") !=
        std::string::npos);
  CHECK(md.find("| RMSNormFwdOp | llama3-8b-decode-float16 | builtin | failed | — | — | — | 1.06 | 0.00105 | — | — | "
                "0.26 | memory | — | — | — | — | — | 1.0e+00 |\n") != std::string::npos);
  CHECK(md.find("| RMSNormFwdOp | mem-8192x8192-float32 | — | skipped |") != std::string::npos);
  CHECK(md.find("## Not timed\n\n- RMSNormFwdOp llama3-8b-decode-float16 (failed): output y: relative error 1 > "
                "0.001") != std::string::npos);
  CHECK(md.find("- RMSNormFwdOp mem-8192x8192-float32 (skipped): moves 536870912 bytes") != std::string::npos);
}

TEST_CASE("CSV: a header row, one row per case, fields quoted where needed") {
  const std::string csv = csv_report(sample());
  std::istringstream lines(csv);
  std::string header, row;
  std::getline(lines, header);
  CHECK(header ==
        "op,case,label,family,target,status,reason,timing,inputs,dtype,flops,bytes,median_us,p10_us,p90_us,reps,tbps,"
        "tflops,roof,peak,floor_us,bound,efficiency,verdict,baseline,baseline_us,vs_baseline,rel_error,tolerance");
  std::getline(lines, row);
  CHECK(row ==
        "RMSNormFwdOp,llama3-8b-decode-bfloat16,llama3-8b-decode,norm,builtin,ok,,cupti,\"x: bfloat16[64, 4096], "
        "weight: bfloat16[4096]\",bfloat16,1.04858e+06,1.05677e+06,0.33024,0.3,0.4,100,3.2,3.17519,cuda_core,"
        "cuda_core_fp32_tflops,0.264192,memory,0.8,at ceiling,copy,0.3,0.90843,0.004,0.01");
  std::getline(lines, row);
  CHECK(row.find(",failed,\"output y: relative error 1 > 0.001 (float16), says \"\"cpu_ref\"\" | pipe\",,") !=
        std::string::npos);
  CHECK(occurrences(csv, "\n") == 4);
}

TEST_CASE("JSON follows schema tileops.bench/1") {
  const auto doc = nlohmann::json::parse(json_report(sample()));
  CHECK(doc["schema"] == "tileops.bench/1");
  CHECK(doc["run"]["command"] == "tileops bench --family norm --report docs/perf/norm.md");
  CHECK(doc["run"]["device"]["name"] == "NVIDIA H200");
  CHECK(doc["run"]["timing"]["method"] == "cupti");
  CHECK(doc["run"]["timing"]["flush_bytes"] == 134217728);
  CHECK(doc["run"]["roofs"]["bandwidth_tbps"] == 4.0);
  CHECK(doc["run"]["roofs"]["calibrated"] == true);
  REQUIRE(doc["cases"].size() == 3);
  const auto& ok = doc["cases"][0];
  CHECK(ok["status"] == "ok");
  CHECK(ok["time"]["median_us"] == 0.33024);
  CHECK(ok["time"]["samples"] == 100);
  CHECK(ok["floor"]["bound"] == "memory");
  CHECK(ok["efficiency"] == 0.8);
  CHECK(ok["verdict"] == "at ceiling");
  CHECK(ok["baseline"]["name"] == "copy");
  CHECK(ok["baseline"]["time"]["median_us"] == 0.30);
  CHECK(ok["rel_error"] == 0.004);
  // params: every kind of value, in the order the case gives them (the first two are
  // RMSNormFwdOp's; the others only exercise the other kinds).
  const auto& params = ok["params"];
  CHECK(params.size() == 7);
  CHECK(params["normalized_shape"] == nlohmann::json::array({4096}));
  CHECK(params["normalized_shape"][0].is_number_integer());
  CHECK(params["eps"] == 1e-5);
  CHECK(params["eps"].is_number_float());
  CHECK(params["elementwise_affine"] == true);
  CHECK(params["approximate"] == "tanh");
  CHECK(params["scales"] == nlohmann::json::array({0.5, 2.0}));
  CHECK(params["out_dtype"] == "float16");
  CHECK(params["bias"].is_null());
  // shapes: one per input in signature order, null for an omitted optional input.
  const auto& shapes = ok["shapes"];
  REQUIRE(shapes.size() == 3);
  CHECK(shapes[0] == nlohmann::json({{"name", "x"}, {"dtype", "bfloat16"}, {"shape", {64, 4096}}}));
  CHECK(shapes[1]["name"] == "weight");
  CHECK(shapes[1]["shape"] == nlohmann::json::array({4096}));
  CHECK(shapes[2].is_null());
  const auto& failed = doc["cases"][1];
  CHECK(failed["status"] == "failed");
  CHECK(failed["time"].is_null());
  CHECK(failed["efficiency"].is_null());
  CHECK(failed["baseline"].is_null());
  CHECK(doc["cases"][2]["rel_error"].is_null());
}

TEST_CASE("the SVG plot: one point per timed case, the roofs its cases run under") {
  const std::string svg = svg_roofline(sample());
  CHECK(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  CHECK(svg.ends_with("</svg>\n"));
  CHECK(occurrences(svg, "class=\"case\"") == 1);
  CHECK(occurrences(svg, "class=\"roof\"") == 1);  // only the CUDA-core roof is in use
  CHECK(svg.find("cuda_core_fp32_tflops 60") != std::string::npos);
  CHECK(svg.find("4 TB/s") != std::string::npos);
  CHECK(svg.find("arithmetic intensity (FLOP/byte)") != std::string::npos);
  CHECK(svg.find("&quot;") == std::string::npos);  // no reason text leaks into the plot
  CHECK(occurrences(svg, "<circle") == occurrences(svg, "</circle>") + 1);  // + the legend's own
}
