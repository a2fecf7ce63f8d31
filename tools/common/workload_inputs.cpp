#include "workload_inputs.hpp"

#include "tensor_values.hpp"

#include <tileops/errors.hpp>
#include <tileops/manifest/manifest.hpp>

#include <cmath>
#include <random>

namespace tileops::tooling {

std::vector<Tensor> make_inputs(const manifest::WorkloadCase& c, const Device& device,
                                uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<Tensor> inputs(c.inputs.size());
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    if (!c.inputs[i]) continue;
    const auto& desc = *c.inputs[i];
    Tensor host = Tensor::empty(view(desc.shape), desc.dtype);
    const auto& range = c.values[i];
    std::vector<double> values(size_t(host.numel()));
    if (range.distribution == manifest::ValueRange::Distribution::Uniform) {
      const bool integral = desc.dtype.is_integral();
      std::uniform_real_distribution<double> u(range.low, range.high);
      for (auto& v : values) {
        v = u(gen);
        if (integral) v = std::min(std::floor(v), std::ceil(range.high) - 1);
      }
    } else {
      std::normal_distribution<double> n(range.low, range.high);
      for (auto& v : values) v = desc.dtype.is_integral() ? std::round(n(gen) * 4) : n(gen);
    }
    fill_from_doubles(host, values);
    inputs[i] = host.to(device);
  }
  return inputs;
}

std::vector<manifest::WorkloadCase> cases_of(std::string_view op) {
  const auto* spec = manifest::Manifest::builtin().find(op);
  if (!spec) {
    auto nearest = manifest::Manifest::builtin().nearest(op, 3);
    std::string hint;
    for (const auto& n : nearest) hint += (hint.empty() ? "; did you mean " : ", ") + n;
    throw ValueError("unknown op '" + std::string(op) + "'" + (hint.empty() ? "" : hint + "?"));
  }
  auto cases = spec->workload_cases();
  if (cases.empty()) throw ValueError(std::string(op) + " has no workload rows");
  return cases;
}

}  // namespace tileops::tooling
