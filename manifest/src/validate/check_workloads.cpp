// Validator checks that run the workload rows: instantiation, unique ids, declared vs
// derived bytes, optional-input coverage, and compositions replayed step by step.
#include "compiled_spec.hpp"
#include "validate/checks.hpp"
#include "workloads.hpp"

#include <tileops/errors.hpp>
#include <tileops/manifest/bound_signature.hpp>
#include <tileops/manifest/workload.hpp>

#include <cmath>
#include <deque>
#include <map>

namespace tileops::manifest::detail {
namespace {

// A workload case's inputs as descs on the host (the checker's device rule is trivially met).
class CaseCall {
 public:
  explicit CaseCall(const std::vector<std::optional<OwnedTensorDesc>>& inputs) {
    for (const auto& in : inputs) pointers.push_back(in ? &descs_.emplace_back(desc(*in)) : nullptr);
  }
  static TensorDesc desc(const OwnedTensorDesc& t) { return {Device::cpu(), t.dtype, view(t.shape)}; }
  std::vector<const TensorDesc*> pointers;

 private:
  std::deque<TensorDesc> descs_;
};

void check_bytes(const OpSpec& op, const WorkloadCase& c, const BoundSignature& bound, const CallCheck& call,
                 Diagnostics& out) {
  Roofline r = bound.roofline(call);
  if (op.roofline().bytes.empty() || !op.roofline().bytes_note.empty()) return;
  double derived = bound.derived_bytes(call);
  if (std::abs(r.bytes - derived) > 1e-9 * std::max(1.0, derived))
    out.add(&op, "bytes", op.file(), c.line,
            "case " + c.id + ": declared bytes " + to_string(ParamValue(r.bytes)) + " differ from the derived " +
                to_string(ParamValue(derived)) + " (fix the formula, or say why in bytes_note)");
}

// Runs the steps on the case's shapes and compares what they produce with the
// composite's own inferred outputs. Returns false after reporting a problem.
bool replay_composition(const Manifest& manifest, const OpSpec& op, const WorkloadCase& c, const BoundSignature& bound,
                        const CallCheck& call, Diagnostics& out) {
  const CompiledSpec& spec = op.compiled();
  std::map<std::string, OwnedTensorDesc> tensors;
  for (size_t i = 0; i < c.inputs.size(); ++i)
    if (c.inputs[i]) tensors[spec.inputs[i].name] = *c.inputs[i];
  for (size_t k = 0; k < spec.composition.size(); ++k) {
    const CompositionStep& step = spec.composition[k];
    std::string where = "case " + c.id + ", step " + std::to_string(k + 1) + " (" + step.op + "): ";
    try {
      auto callee = manifest.find(step.op)->bind(bound.composition_params(k));
      std::vector<std::optional<OwnedTensorDesc>> inputs;
      for (const std::string& name : step.inputs) {
        auto it = tensors.find(name);
        inputs.push_back(name.empty() || it == tensors.end() ? std::nullopt : std::optional(it->second));
      }
      CaseCall in(inputs);
      CallCheck step_call;
      callee->check(in.pointers, {}, step_call);
      for (size_t j = 0; j < step.outputs.size() && j < step_call.outputs().size(); ++j)
        tensors[step.outputs[j]] = {step_call.outputs()[j].dtype, step_call.outputs()[j].shape};
    } catch (const std::exception& e) {
      out.add(&op, "composition", op.file(), step.line, where + e.what());
      return false;
    }
  }
  for (size_t j = 0; j < spec.outputs.size(); ++j) {
    const InferredOutput& want = call.outputs()[j];
    auto it = tensors.find(spec.outputs[j].name);
    if (it == tensors.end()) continue;  // the loader reported it
    if (it->second.dtype != want.dtype || it->second.shape != want.shape) {
      out.add(op, "composition",
              "case " + c.id + ": the steps produce '" + spec.outputs[j].name + "' as " +
                  std::string(it->second.dtype.name()) + " " + format_shape(view(it->second.shape)) +
                  "; the signature infers " + std::string(want.dtype.name()) + " " + format_shape(view(want.shape)));
      return false;
    }
  }
  return true;
}

}  // namespace

void check_workloads(const Manifest& manifest, const OpSpec& op, Diagnostics& out) {
  const CompiledSpec& spec = op.compiled();
  if (spec.workloads.empty()) {
    if (op.implemented()) out.add(op, "workload", "an implemented op needs workload rows (benchmarks run only those)");
    return;
  }
  std::vector<std::string> ids;
  std::vector<int> passed(spec.inputs.size(), 0), omitted(spec.inputs.size(), 0), optional(spec.inputs.size(), 0);
  bool composition_ok = true;
  for (size_t row = 0; row < spec.workloads.size(); ++row) {
    std::vector<WorkloadCase> cases;
    try {
      cases = expand_row(op, row);
    } catch (const std::exception& e) {
      out.add(&op, "workload", op.file(), spec.workloads[row].line, e.what());
      continue;
    }
    for (const WorkloadCase& c : cases) {
      if (std::find(ids.begin(), ids.end(), c.id) != ids.end())
        out.add(&op, "workload", op.file(), c.line, "case id '" + c.id + "' appears twice");
      ids.push_back(c.id);
      try {
        auto bound = op.bind(c.params);
        CaseCall in(c.inputs);
        CallCheck call;
        bound->check(in.pointers, {}, call);
        for (size_t i = 0; i < c.inputs.size(); ++i) {
          optional[i] += bound->input_optional(i);
          ++(c.inputs[i] ? passed : omitted)[i];
        }
        check_bytes(op, c, *bound, call, out);
        if (op.is_composite() && composition_ok) composition_ok = replay_composition(manifest, op, c, *bound, call, out);
      } catch (const std::exception& e) {
        out.add(&op, "workload", op.file(), c.line, "case " + c.id + ": " + e.what());
      }
    }
  }
  for (size_t i = 0; i < spec.inputs.size(); ++i) {
    if (!optional[i]) continue;
    if (!passed[i]) out.add(op, "optional-coverage", "optional input '" + spec.inputs[i].name + "' is passed by no workload row");
    if (!omitted[i]) out.add(op, "optional-coverage", "optional input '" + spec.inputs[i].name + "' is omitted by no workload row");
  }
}

}  // namespace tileops::manifest::detail
