#include "verify.hpp"

#include "tensor_values.hpp"
#include "workload_inputs.hpp"

#include <tileops/op.hpp>

#include <cmath>
#include <cstdio>
#include <limits>

namespace tileops::bench {

Reference compute_reference(const std::string& op, const manifest::WorkloadCase& c, uint64_t seed) {
  Reference ref;
  ref.host_inputs = tooling::make_inputs(c, Device::cpu(), seed);
  Op reference(op, c.params, std::string("cpu_ref"));
  ref.outputs = reference(copies_on(ref.host_inputs, Device::cpu()));
  return ref;
}

std::vector<Tensor> copies_on(std::span<const Tensor> tensors, const Device& device) {
  std::vector<Tensor> out(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!tensors[i].defined()) continue;
    out[i] = Tensor::empty(tensors[i].shape(), tensors[i].dtype(), device);
    out[i].copy_from(tensors[i]);
  }
  return out;
}

Agreement compare_outputs(std::span<const std::string> names, std::span<const Tensor> outputs,
                          std::span<const Tensor> reference) {
  Agreement a{true, 0, 0, ""};
  double worst = -1;  // error / bound of the worst output so far
  for (size_t i = 0; i < outputs.size(); ++i) {
    const double error = tooling::relative_error(outputs[i], reference[i]);
    const double bound = tooling::tolerance(reference[i].dtype());
    const bool within = error <= bound;  // false for NaN
    const double ratio = bound > 0 ? error / bound : (error == 0 ? 0 : std::numeric_limits<double>::infinity());
    if (!(ratio <= worst)) {
      worst = std::isnan(ratio) ? std::numeric_limits<double>::infinity() : ratio;
      a.rel_error = error;
      a.tolerance = bound;
    }
    if (!within && a.passed) {
      char text[160];
      std::snprintf(text, sizeof text, "output %s: relative error %.3g > %.3g (%s) against cpu_ref", names[i].c_str(),
                    error, bound, std::string(reference[i].dtype().name()).c_str());
      a.passed = false;
      a.detail = text;
    }
  }
  return a;
}

}  // namespace tileops::bench
