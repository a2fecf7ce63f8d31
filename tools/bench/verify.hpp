#pragma once
// Correctness before timing: the same inputs through cpu_ref, outputs compared by
// relative error ‖out − ref‖/‖ref‖ against the per-dtype bound (fp32 1e-5, fp16 1e-3,
// bf16 1e-2, integers exact; NaN never passes).
#include <tileops/manifest/workload.hpp>
#include <tileops/tensor.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tileops::bench {

// A case's inputs on the host and what cpu_ref computes from them.
struct Reference {
  std::vector<Tensor> host_inputs;  // never handed to an op: mutated inputs stay pristine
  std::vector<Tensor> outputs;
};

// Random inputs for `c` (see tooling::make_inputs) and cpu_ref's outputs for a copy of
// them. Thread-safe: the runner prepares cases ahead of the device on worker threads.
Reference compute_reference(const std::string& op, const manifest::WorkloadCase& c, uint64_t seed);

// Copies of `tensors` on `device` (undefined entries stay undefined).
std::vector<Tensor> copies_on(std::span<const Tensor> tensors, const Device& device);

struct Agreement {
  bool passed = false;
  double rel_error = 0;   // of the output furthest from its bound
  double tolerance = 0;   // that output's bound
  std::string detail;     // when failed: "output y: relative error 0.31 > 0.01 (bfloat16)"
};
Agreement compare_outputs(std::span<const std::string> names, std::span<const Tensor> outputs,
                          std::span<const Tensor> reference);

}  // namespace tileops::bench
