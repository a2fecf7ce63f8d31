#pragma once
// What a benchmark run produced: one row per case and what the run was. Reports are
// written from these alone.
#include "roofline.hpp"
#include "stats.hpp"

#include <tileops/params.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tileops::bench {

enum class CaseStatus { ok, failed, skipped };
std::string_view status_name(CaseStatus status);  // "ok", "failed", "skipped"

// One input of a case as data, so that other tools can rebuild the same call.
struct InputShape {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
};

struct CaseResult {
  std::string op, family, case_id, label;
  std::string inputs;  // "x: bfloat16[64, 4096], weight: bfloat16[4096]"
  Params params;       // the case's params as the workload row gives them (defaults left out)
  std::vector<std::optional<InputShape>> shapes;  // per input in signature order; nullopt: omitted
  std::string target;  // the target the op settled on ("builtin", "cpu_ref", ...)
  CaseStatus status = CaseStatus::ok;
  std::string reason;  // why failed or skipped
  CaseCost cost;
  // Verification: the largest ‖out − ref‖/‖ref‖ over the outputs, and the bound it met.
  std::optional<double> rel_error;
  double tolerance = 0;
  std::optional<Spread> time;
  std::optional<Floor> floor;
  std::optional<double> efficiency;
  std::string verdict;
  std::string baseline;  // "copy", "cublaslt", or empty with baseline_note saying why
  std::string baseline_note;
  std::optional<Spread> baseline_time;
  std::optional<double> vs_baseline;  // baseline median / op median: 1 = as fast as the peer
};

struct RunInfo {
  std::string date;      // UTC, ISO 8601
  std::string command;   // as typed
  std::string device;    // "cuda:0"
  std::string device_name;
  std::string driver;
  std::string timing;    // the Timer's name
  std::string timing_note;
  std::optional<Roofs> roofs;  // absent without a profile for the device
  int warmup = 0, reps = 0, rotate = 0;
  size_t flush_bytes = 0;
  double max_bytes = 0;  // 0: no limit
  std::string tileops_version;
};

struct BenchResult {
  RunInfo info;
  std::vector<CaseResult> cases;
  size_t count(CaseStatus status) const;
};

}  // namespace tileops::bench
