#pragma once
// The case loop of `tileops bench`: for each selected workload case, random inputs,
// verification against cpu_ref, then timing (warm-up, caches flushed before every call,
// input sets rotated, interleaved with the baseline), and the roofline numbers.
#include "case_selection.hpp"
#include "results.hpp"
#include "run_device.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace tileops::bench {

struct RunOptions {
  Selection selection;
  std::string device = "cuda:0";
  std::string target;  // empty: the op decides from the device
  TimingChoice timing;
  std::optional<int> warmup;  // default: 10 on CUDA, 2 under host timing
  std::optional<int> reps;    // default: 100 on CUDA, 10 under host timing
  int rotate = 3;             // input sets called in turn
  // Cases whose roofline bytes exceed this are skipped. Default: no limit on CUDA,
  // 64 MiB under host timing (cpu_ref would spend minutes on the 8192x8192 rows).
  std::optional<double> max_bytes;
  std::string profile_path;  // empty: the compiled-in profile matching the device name
  uint64_t seed = 1;
  std::string command;       // recorded in the reports
  unsigned prepare_threads = 0;  // references computed ahead; 0: from the core count
};

// (cases finished, cases in all, the case starting)
using Progress = std::function<void(size_t, size_t, const std::string&)>;

// Throws for what stops the whole run (an unknown op, a device that cannot be opened);
// a case that fails is a row with status failed.
BenchResult run_bench(const RunOptions& options, const Progress& progress = {});

}  // namespace tileops::bench
