// The cold half of the checker: every failure message is built here, only once a
// check has already failed.
#include "check/checker.hpp"

#include <tileops/errors.hpp>

#include <bit>

namespace tileops::manifest::detail {
namespace {

std::string join_dims(std::span<const int64_t> dims) {
  std::string out;
  for (size_t k = 0; k < dims.size(); ++k) out += (k ? ", " : "") + std::to_string(dims[k]);
  return out;
}

std::string dtype_list(const std::vector<DType>& dtypes) {
  std::string out;
  for (size_t k = 0; k < dtypes.size(); ++k) out += (k ? ", " : "") + std::string(dtypes[k].name());
  return out;
}

}  // namespace

void Checker::fail(const std::string& message) const { throw ValueError(op() + ": " + message); }

void Checker::fail_missing(size_t input) { fail("missing required input '" + plan.names.inputs[input].name + "'"); }

namespace {

// The shape a signature needs with what is known now filled in: "[*B, 4096]".
std::string render(const BoundShape& s, Checker& c) {
  using Kind = BoundItem::Kind;
  std::string out = "[";
  auto add = [&](const std::string& piece) { out += (out.size() > 1 ? ", " : "") + piece; };
  for (const BoundItem& it : s.items) {
    const CallState& st = c.state;
    switch (it.kind) {
      case Kind::Const: add(std::to_string(it.value)); break;
      case Kind::ConstSplice:
        if (!it.dims.empty()) add(join_dims(it.dims));
        break;
      case Kind::Dim: add(st.is_bound(it.slot) ? std::to_string(st.indices[it.slot].i) : *it.text); break;
      case Kind::Affine:
        add(st.is_bound(it.slot) ? std::to_string(it.value * st.indices[it.slot].i + it.offset) : *it.text);
        break;
      case Kind::Scalar:
      case Kind::SpliceExpr: {
        bool splice = it.kind == Kind::SpliceExpr;
        std::string piece = (splice ? "*" : "") + *it.text;
        if (st.all_bound(it.needs)) {
          try {
            Value v = evaluate(*it.expr, c.cx);
            piece = splice && v.is_sequence() ? format_value(v).substr(1, format_value(v).size() - 2) : format_value(v);
          } catch (const EvalError&) {
          }
        }
        if (!piece.empty()) add(piece);
        break;
      }
      case Kind::SpliceIndex:
        if (!st.is_bound(it.slot)) add("*" + *it.text);
        else if (st.indices[it.slot].size) add(join_dims(st.indices[it.slot].int_span()));
        break;
    }
  }
  return out + "]";
}

std::string shape_needs(const BoundShape& s, Checker& c) {
  std::string rendered = render(s, c);
  return rendered == *s.text ? *s.text : *s.text + " = " + rendered;
}

}  // namespace

void Checker::fail_rank(size_t input, size_t at_least, bool exact) {
  const SeenInput& in = state.inputs[input];
  fail("input '" + plan.names.inputs[input].name + "' has shape " + format_shape(in.shape) + "; the signature needs " +
       shape_needs(plan.inputs[input].shape, *this) + ": " + (exact ? "" : "at least ") + std::to_string(at_least) +
       (at_least == 1 ? " axis" : " axes"));
}

void Checker::fail_shape(size_t input) {
  const SeenInput& in = state.inputs[input];
  fail("input '" + plan.names.inputs[input].name + "' has shape " + format_shape(in.shape) + "; the signature needs " +
       shape_needs(plan.inputs[input].shape, *this));
}

namespace {
std::string bound_by(const CallState& st, const NameTable& names, uint32_t slot, size_t input) {
  int by = st.bound_by_input[slot];
  if (by == int(input) && st.bound_by_axis[slot] >= 0) return "bound by axis " + std::to_string(st.bound_by_axis[slot]);
  return "bound by input '" + names.inputs[size_t(by)].name + "'";
}
}  // namespace

void Checker::fail_bound_dim(size_t input, uint32_t slot, size_t axis) {
  const SeenInput& in = state.inputs[input];
  fail("input '" + plan.names.inputs[input].name + "' has shape " + format_shape(in.shape) + "; " +
       plan.names.indices[slot].name + " = " + std::to_string(state.indices[slot].i) + " (" +
       bound_by(state, plan.names, slot, input) + ") but axis " + std::to_string(axis) + " is " +
       std::to_string(in.shape[axis]));
}

void Checker::fail_bound_splice(size_t input, uint32_t slot, size_t axis, size_t len) {
  const SeenInput& in = state.inputs[input];
  std::string axes = len == 1 ? "axis " + std::to_string(axis) + " is "
                              : "axes " + std::to_string(axis) + " to " + std::to_string(axis + len - 1) + " are ";
  fail("input '" + plan.names.inputs[input].name + "' has shape " + format_shape(in.shape) + "; " +
       plan.names.indices[slot].name + " = " + format_value(state.indices[slot]) + " (" +
       bound_by(state, plan.names, slot, input) + ") but " + axes + format_shape(in.shape.subspan(axis, len)));
}

void Checker::fail_solve(size_t input, const BoundItem& item, size_t axis, int64_t a, int64_t offset) {
  const SeenInput& in = state.inputs[input];
  const std::string& index = plan.names.indices[item.slot].name;
  int64_t rest = in.shape[axis] - offset;
  std::string why = a == 0 ? "which does not depend on " + index
                    : rest % a != 0 ? "which has no integer solution for " + index
                                    : "which gives " + index + " = " + std::to_string(rest / a) + " < 0";
  fail("input '" + plan.names.inputs[input].name + "' has shape " + format_shape(in.shape) + "; axis " +
       std::to_string(axis) + " = " + std::to_string(in.shape[axis]) + " must be " + *item.text + ", " + why);
}

void Checker::fail_dtype(size_t input) {
  const BoundDType& t = plan.inputs[input].dtype;
  std::string head = "input '" + plan.names.inputs[input].name + "' has dtype " +
                     std::string(state.inputs[input].dtype.name()) + "; ";
  if (t.kind == BoundDType::Kind::BindIndex) {
    const std::string& name = plan.names.indices[t.slot].name;
    if (state.is_bound(t.slot))
      fail(head + name + " = " + std::string(state.indices[t.slot].dtype.name()) + " (" +
           bound_by(state, plan.names, t.slot, input) + ")");
    fail(head + name + " must be one of " + dtype_list(plan.spec->indices[t.slot].dtypes));
  }
  std::string needs = t.kind == BoundDType::Kind::Const ? std::string(t.value.name()) : "";
  if (t.kind == BoundDType::Kind::Expr) {
    try {
      Value v = evaluate(*t.expr, cx);
      needs = *t.text + " = " + format_value(v);
    } catch (const EvalError&) {
      needs = *t.text;
    }
  }
  fail(head + "the signature needs " + needs);
}

void Checker::fail_unresolved(uint32_t pending) {
  size_t input = size_t(std::countr_zero(pending));
  std::string missing;
  for (const BoundItem& it : plan.inputs[input].shape.items) {
    uint64_t need = it.needs & ~state.bound;
    if ((it.kind == BoundItem::Kind::SpliceIndex || it.kind == BoundItem::Kind::Dim) && !state.is_bound(it.slot))
      need |= uint64_t(1) << it.slot;
    for (; need; need &= need - 1) {
      const std::string& name = plan.names.indices[size_t(std::countr_zero(need))].name;
      if (missing.find(name) == std::string::npos) missing += (missing.empty() ? "" : ", ") + name;
    }
  }
  fail("cannot check input '" + plan.names.inputs[input].name + "' against " + *plan.inputs[input].shape.text +
       ": no input fixes " + (missing.empty() ? "its layout" : missing) + " (a spec problem: run the validator)");
}

void Checker::fail_rule(const BoundRule& rule, const char* detail) {
  std::string values = describe_names(*rule.original, cx);
  std::string message = "shape rule '" + *rule.text + "' fails";
  if (detail) message += std::string(": ") + detail + (values.empty() ? "" : "; " + values);
  else if (!values.empty()) message += ": " + values;
  fail(message);
}

void Checker::fail_combo() {
  const DTypeCombos& combos = plan.spec->combos;
  std::string got, allowed;
  for (size_t k = 0; k < combos.slots.size(); ++k) {
    uint32_t slot = combos.slots[k];
    if (state.is_bound(slot))
      got += (got.empty() ? "" : ", ") + plan.names.indices[slot].name + " = " + std::string(state.indices[slot].dtype.name());
  }
  for (const auto& row : combos.rows) {
    std::string one;
    for (size_t k = 0; k < row.size(); ++k)
      one += (k ? ", " : "") + plan.names.indices[combos.slots[k]].name + ": " + std::string(row[k].name());
    allowed += (allowed.empty() ? "{" : ", {") + one + "}";
  }
  fail("dtypes " + got + " are not an allowed combination; dtype_combos allows " + allowed);
}

void Checker::fail_devices(std::span<const TensorDesc* const> inputs, std::span<const TensorDesc* const> outs) {
  std::string list;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i] && !plan.inputs[i].host)
      list += (list.empty() ? "'" : ", '") + plan.names.inputs[i].name + "' on " + inputs[i]->device.str();
  for (size_t j = 0; j < outs.size(); ++j)
    if (outs[j] && !plan.outputs[j].host)
      list += (list.empty() ? "out '" : ", out '") + plan.names.outputs[j].name + "' on " + outs[j]->device.str();
  fail("inputs on several devices: " + list);
}

void Checker::fail_host(size_t input, const Device& got) {
  fail("input '" + plan.names.inputs[input].name + "' must be on the host (device: cpu), got " + got.str());
}

void Checker::fail_eval(const EvalError& error, const std::string& where) {
  if (error.names_items) fail(error.what());
  fail(where + ": " + error.what());
}

void Checker::fail_output_mismatch(const BoundPlan& plan, size_t output, const TensorDesc& got,
                                   const InferredOutput& want, const char* what) {
  std::string head = plan.spec->name + ": " + what + " output '" + plan.names.outputs[output].name + "' ";
  if (got.dtype != want.dtype)
    throw ValueError(head + "has dtype " + std::string(got.dtype.name()) + "; expected " + std::string(want.dtype.name()));
  if (!(got.device == want.device))
    throw ValueError(head + "is on " + got.device.str() + "; expected " + want.device.str());
  throw ValueError(head + "has shape " + format_shape(got.shape) + "; expected " +
                   format_shape({want.shape.data(), want.shape.size()}));
}

}  // namespace tileops::manifest::detail
