// OpSpec::workload_cases: each row's dtype cases as concrete calls. Input shapes follow
// from the row's index values and params; every case is then run through the checker,
// so a row that does not instantiate fails here (and in the validator).
#include "check/bound_plan.hpp"
#include "check/materialize.hpp"
#include "check/value_ranges.hpp"
#include "load/param_types.hpp"
#include "workloads.hpp"

#include <tileops/errors.hpp>
#include <tileops/manifest/bound_signature.hpp>
#include <tileops/manifest/workload.hpp>

namespace tileops::manifest {
namespace {

class CaseBuilder {
 public:
  CaseBuilder(const OpSpec& op, const detail::WorkloadRow& row) : op_(op), spec_(op.compiled()), row_(row) {}

  WorkloadCase build(const std::vector<std::pair<std::string, DType>>& dtypes) {
    WorkloadCase out;
    out.label = row_.label;
    out.line = row_.line;
    out.id = row_.label;
    for (const auto& [name, dtype] : dtypes) out.id += "-" + std::string(dtype.name());
    out.params = row_.params;
    for (const auto& [slot, value] : row_.indices) out.indices.emplace_back(spec_.indices[slot].name, value);
    for (const auto& [name, dtype] : dtypes) {
      if (op_.param_index(name)) out.params.emplace_back(name, dtype);
      else out.indices.emplace_back(name, dtype);
    }
    try {
      inputs(out);
    } catch (const ValueError& error) {
      // Checker messages start with the op's name; the row's context replaces it.
      std::string what = error.what();
      std::string prefix = spec_.name + ": ";
      if (what.rfind(prefix, 0) == 0) what = what.substr(prefix.size());
      throw ValueError("row '" + row_.label + "': " + what);
    }
    return out;
  }

 private:
  void inputs(WorkloadCase& out) {
    auto bound = op_.bind(out.params);
    const detail::BoundPlan& plan = bound->plan();
    auto state = std::make_unique<detail::CallState>();
    for (const auto& [slot, value] : row_.indices) set(*state, slot, detail::view_of(value));
    for (const Param& index : out.indices)
      if (auto* dtype = std::get_if<DType>(&index.value))
        set(*state, uint32_t(*op_.index_slot(index.name)), detail::Value::dtype_of(*dtype));
    detail::EvalContext cx{plan.param_values, state.get(), plan.lets, {}, &plan.names};

    out.inputs.reserve(plan.inputs.size());  // the state points into these shapes below
    for (size_t i = 0; i < plan.inputs.size(); ++i) {
      const detail::BoundTensor& t = plan.inputs[i];
      if (t.optional && !(row_.some >> i & 1)) {
        out.inputs.emplace_back();
        continue;
      }
      OwnedTensorDesc& desc = out.inputs.emplace_back(OwnedTensorDesc{}).value();
      try {
        detail::materialize_shape(t.shape, cx, desc.shape);
        desc.dtype = detail::materialize_dtype(t.dtype, cx);
      } catch (const detail::EvalError& error) {
        throw ValueError("input '" + spec_.inputs[i].name + "' shape " + *t.shape.text + ": " + error.what());
      }
      state->inputs[i] = {true, desc.dtype, {desc.shape.data(), desc.shape.size()}};
    }
    for (size_t i = 0; i < plan.inputs.size(); ++i)
      out.values.push_back(out.inputs[i] ? detail::input_value_range(spec_, i, out.inputs[i]->dtype, cx) : ValueRange{});
    check(*bound, out);
  }

  static void set(detail::CallState& state, uint32_t slot, detail::Value v) {
    state.indices[slot] = v;
    state.bound |= uint64_t(1) << slot;
    state.bound_by_input[slot] = -1;
  }

  // The case must pass the checker exactly as a real call would.
  static void check(const BoundSignature& bound, const WorkloadCase& c) {
    std::vector<TensorDesc> descs;
    descs.reserve(c.inputs.size());
    std::vector<const TensorDesc*> pointers;
    for (const auto& input : c.inputs) {
      if (!input) {
        pointers.push_back(nullptr);
        continue;
      }
      descs.push_back({Device::cpu(), input->dtype, {input->shape.data(), input->shape.size()}});
      pointers.push_back(&descs.back());
    }
    CallCheck call;
    bound.check(pointers, {}, call);
  }

  const OpSpec& op_;
  const detail::CompiledSpec& spec_;
  const detail::WorkloadRow& row_;
};

}  // namespace

namespace detail {

std::vector<WorkloadCase> expand_row(const OpSpec& op, size_t row) {
  const WorkloadRow& r = op.compiled().workloads.at(row);
  CaseBuilder builder(op, r);
  std::vector<WorkloadCase> out;
  for (const auto& dtypes : r.dtype_cases) out.push_back(builder.build(dtypes));
  return out;
}

}  // namespace detail

std::vector<WorkloadCase> OpSpec::workload_cases() const {
  std::vector<WorkloadCase> out;
  for (size_t row = 0; row < compiled_->workloads.size(); ++row) {
    try {
      for (auto& c : detail::expand_row(*this, row)) out.push_back(std::move(c));
    } catch (const ValueError& error) {
      throw ValueError(name() + ": workload " + error.what() + " (" + file() + ":" +
                       std::to_string(compiled_->workloads[row].line) + ")");
    }
  }
  return out;
}

}  // namespace tileops::manifest
