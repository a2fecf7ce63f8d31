#include <tileops/manifest/bound_signature.hpp>

#include "check/checker.hpp"

#include <tileops/errors.hpp>
#include <tileops/manifest/op_spec.hpp>

namespace tileops::manifest {

BoundSignature::BoundSignature(const OpSpec& spec, std::unique_ptr<detail::BoundPlan> plan)
    : spec_(&spec), plan_(std::move(plan)) {}
BoundSignature::~BoundSignature() = default;

std::span<const ParamValue> BoundSignature::params() const { return plan_->settled; }

const Params& BoundSignature::composition_params(size_t step) const { return plan_->step_params.at(step); }

bool BoundSignature::input_optional(size_t i) const { return plan_->inputs.at(i).optional; }
bool BoundSignature::input_mutated(size_t i) const { return plan_->inputs.at(i).mutated; }
bool BoundSignature::input_write_only(size_t i) const { return plan_->inputs.at(i).write_only; }
bool BoundSignature::input_written(size_t i) const { return input_mutated(i) || input_write_only(i); }
bool BoundSignature::input_contiguous(size_t i) const { return plan_->inputs.at(i).contiguous; }

void BoundSignature::check(std::span<const TensorDesc* const> inputs, std::span<const TensorDesc* const> outs,
                           CallCheck& call) const {
  detail::Checker(*this, *plan_, call).run(inputs, outs);
}

void BoundSignature::check_outputs(std::span<const TensorDesc* const> produced, const CallCheck& call) const {
  detail::Checker::check_produced(*plan_, call, produced);
}

std::shared_ptr<const BoundSignature> OpSpec::bind(const Params& params) const {
  auto settled = detail::settle_params(*compiled_, params);
  return std::make_shared<const BoundSignature>(*this, detail::build_plan(*compiled_, std::move(settled)));
}

}  // namespace tileops::manifest
