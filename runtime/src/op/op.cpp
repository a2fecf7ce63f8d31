// tileops::Op forwards to the shared state behind it.
#include "op/op_state.hpp"

#include <tileops/op.hpp>

namespace tileops {

Op::Op(std::string_view name, const Params& params, Target target)
    : state_(std::make_shared<detail::OpState>(name, params, std::move(target))) {}
Op::~Op() = default;
Op::Op(Op&&) noexcept = default;
Op& Op::operator=(Op&&) noexcept = default;

std::vector<Tensor> Op::operator()(std::span<const Tensor> inputs) {
  std::vector<Tensor> outputs(state_->spec().outputs().size());
  state_->call(inputs, outputs);
  return outputs;
}

void Op::call(std::span<const Tensor> inputs, std::span<Tensor> outputs) {
  state_->call(inputs, outputs);
}

const std::string& Op::name() const { return state_->name(); }

std::vector<std::string> Op::input_names() const {
  std::vector<std::string> out;
  for (const auto& t : state_->spec().inputs()) out.push_back(t.name);
  return out;
}

std::vector<std::string> Op::output_names() const {
  std::vector<std::string> out;
  for (const auto& t : state_->spec().outputs()) out.push_back(t.name);
  return out;
}

Params Op::params() const { return state_->params(); }
Target Op::target() const { return state_->target(); }
void Op::request_tune() { state_->request_tune(); }
std::string Op::kernel_config() const { return state_->kernel_config(); }
Roofline Op::roofline(std::span<const Tensor> inputs) const { return state_->roofline(inputs); }

}  // namespace tileops
