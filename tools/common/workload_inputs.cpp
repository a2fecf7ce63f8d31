#include "workload_inputs.hpp"

#include "tensor_values.hpp"

#include <tileops/errors.hpp>
#include <tileops/manifest.hpp>

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

namespace {

// The dtype the signature gives input `i` in case `c`: an index or dtype param the case
// settles, or a constant.
DType signature_dtype(const manifest::OpSpec& spec, const manifest::WorkloadCase& c, size_t i) {
  const std::string& text = spec.inputs()[i].dtype_text;
  for (const auto* list : {&c.indices, &c.params})
    for (const auto& p : *list)
      if (p.name == text)
        if (auto* dtype = std::get_if<DType>(&p.value)) return *dtype;
  if (auto constant = DType::parse(text)) return *constant;
  throw ValueError(spec.name() + ": the dtype of input '" + spec.inputs()[i].name + "' (" + text +
                   ") is not settled by case " + c.id);
}

}  // namespace

manifest::WorkloadCase reshaped(std::string_view op, const manifest::WorkloadCase& c,
                                const std::vector<std::pair<std::string, Dims>>& shapes) {
  const auto& spec = *manifest::Manifest::builtin().find(op);
  manifest::WorkloadCase out = c;
  for (const auto& [name, dims] : shapes) {
    auto index = spec.input_index(name);
    if (!index) {
      std::string names;
      for (const auto& in : spec.inputs()) names += (names.empty() ? "" : ", ") + in.name;
      throw ValueError(std::string(op) + " has no input '" + name + "'; its inputs are " + names);
    }
    auto& slot = out.inputs[*index];
    DType dtype = slot ? slot->dtype : signature_dtype(spec, c, *index);
    slot = manifest::OwnedTensorDesc{dtype, dims};
  }
  std::vector<TensorDesc> descs(out.inputs.size());
  std::vector<const TensorDesc*> pointers(out.inputs.size(), nullptr);
  for (size_t i = 0; i < out.inputs.size(); ++i)
    if (out.inputs[i]) pointers[i] = &(descs[i] = {Device::cpu(), out.inputs[i]->dtype, view(out.inputs[i]->shape)});
  auto bound = spec.bind(out.params);
  manifest::CallCheck check;
  bound->check(pointers, {}, check);
  out.values = bound->value_ranges(check);
  return out;
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
