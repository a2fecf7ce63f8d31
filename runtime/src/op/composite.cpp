#include "op/composite.hpp"

#include <tileops/errors.hpp>

#include <algorithm>
#include <utility>

namespace tileops::detail {
namespace {

constexpr std::string_view kOmitted = "";

// The tensors of one composite call, by name: its inputs, then each step's outputs.
class Values {
 public:
  void set(std::string_view name, Tensor t) { values_.emplace_back(name, std::move(t)); }
  Tensor get(std::string_view name) const {
    if (name == kOmitted) return {};
    for (auto it = values_.rbegin(); it != values_.rend(); ++it)
      if (it->first == name) return it->second;
    return {};  // an omitted optional input of the composite
  }

 private:
  std::vector<std::pair<std::string_view, Tensor>> values_;
};

}  // namespace

CompositeRunner::CompositeRunner(const manifest::OpSpec& spec,
                                 const manifest::BoundSignature& signature,
                                 const std::string& target, bool tuned)
    : spec_(spec) {
  for (size_t step = 0; step < spec.composition().size(); ++step) {
    steps_.emplace_back(spec.composition()[step].op, signature.composition_params(step), target);
    if (tuned) steps_.back().request_tune();
  }
}

void CompositeRunner::run(std::span<const Tensor> inputs, std::span<Tensor> outputs,
                          const manifest::CallCheck& check) {
  Values values;
  for (size_t i = 0; i < inputs.size(); ++i) values.set(spec_.inputs()[i].name, inputs[i]);
  for (size_t step = 0; step < spec_.composition().size(); ++step) {
    const auto& s = spec_.composition()[step];
    std::vector<Tensor> step_inputs;
    for (const auto& name : s.inputs) step_inputs.push_back(values.get(name));
    std::vector<Tensor> step_outputs(s.outputs.size());
    steps_[step].call(step_inputs, step_outputs);
    for (size_t k = 0; k < s.outputs.size(); ++k) values.set(s.outputs[k], step_outputs[k]);
  }
  for (size_t j = 0; j < outputs.size(); ++j) {
    const auto& out = spec_.outputs()[j];
    Tensor produced = values.get(out.name);
    const auto& inferred = check.outputs()[j];
    if (!produced.defined() || produced.dtype() != inferred.dtype ||
        !std::equal(produced.shape().begin(), produced.shape().end(), inferred.shape.begin(),
                    inferred.shape.end()))
      throw ValueError(spec_.name() + ": its composition produced output '" + out.name +
                       "' unlike the signature says (" + std::string(inferred.dtype.name()) +
                       format_shape(view(inferred.shape)) + ")");
    if (outputs[j].defined())
      outputs[j].copy_from(produced);
    else
      outputs[j] = std::move(produced);
  }
}

void CompositeRunner::request_tune() {
  for (auto& op : steps_) op.request_tune();
}

std::string CompositeRunner::kernel_config() const {
  for (const auto& op : steps_)
    if (auto config = op.kernel_config(); !config.empty()) return config;
  return {};
}

}  // namespace tileops::detail
