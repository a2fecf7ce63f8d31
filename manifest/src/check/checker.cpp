#include "check/checker.hpp"

#include "check/materialize.hpp"

#include <tileops/errors.hpp>

#include <algorithm>
#include <bit>

namespace tileops::manifest::detail {
Checker::Checker(const BoundSignature& sig, const BoundPlan& p, CallCheck& c)
    : signature(sig), plan(p), call(c), state(c.state_) {
  cx.params = plan.param_values;
  cx.state = &state;
  cx.lets = plan.lets;
  cx.names = &plan.names;
}

void Checker::run(std::span<const TensorDesc* const> inputs, std::span<const TensorDesc* const> outs) {
  if (inputs.size() != plan.inputs.size())
    fail("takes " + std::to_string(plan.inputs.size()) + " inputs (nullptr for an omitted optional one), got " +
         std::to_string(inputs.size()));
  if (!outs.empty() && outs.size() != plan.outputs.size())
    fail("has " + std::to_string(plan.outputs.size()) + " outputs; outs must be empty or have one entry each, got " +
         std::to_string(outs.size()));
  call.checked_by_ = nullptr;
  state.reset();
  record_inputs(inputs);
  unify();
  check_rules();
  check_dtype_combos();
  settle_device(inputs, outs);
  infer_outputs();
  check_supplied(outs);
  call.checked_by_ = &signature;
}

void Checker::record_inputs(std::span<const TensorDesc* const> inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    SeenInput& seen = state.inputs[i];
    const TensorDesc* d = inputs[i];
    seen.present = d != nullptr;
    if (!d) {
      if (!plan.inputs[i].optional) fail_missing(i);
      seen.shape = {};
      continue;
    }
    seen.dtype = d->dtype;
    seen.shape = state.arena.copy<int64_t>(d->shape);
  }
}

void Checker::unify() {
  uint32_t pending = 0;
  for (size_t i = 0; i < plan.inputs.size(); ++i)
    if (state.inputs[i].present && !unify_input(i)) pending |= uint32_t(1) << i;
  // Items waiting for an index a later input binds: retry until nothing moves.
  while (pending) {
    uint32_t before = pending;
    for (uint32_t rest = pending; rest; rest &= rest - 1) {
      size_t i = size_t(std::countr_zero(rest));
      if (unify_input(i)) pending &= ~(uint32_t(1) << i);
    }
    if (pending == before) fail_unresolved(pending);
  }
}

bool Checker::unify_input(size_t i) {
  bool dtype_done = unify_dtype(i);
  bool shape_done = unify_shape(i);
  return dtype_done && shape_done;
}

bool Checker::unify_dtype(size_t i) {
  const BoundDType& t = plan.inputs[i].dtype;
  DType got = state.inputs[i].dtype;
  switch (t.kind) {
    case BoundDType::Kind::BindIndex: {
      if (state.is_bound(t.slot)) {
        if (state.indices[t.slot].dtype != got) fail_dtype(i);
        return true;
      }
      const auto& allowed = plan.spec->indices[t.slot].dtypes;
      if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), got) == allowed.end()) fail_dtype(i);
      state.indices[t.slot] = Value::dtype_of(got);
      state.bound |= uint64_t(1) << t.slot;
      state.bound_by_input[t.slot] = int8_t(i);
      state.bound_by_axis[t.slot] = -1;
      return true;
    }
    case BoundDType::Kind::Const:
      if (t.value != got) fail_dtype(i);
      return true;
    case BoundDType::Kind::Expr: {
      if (!state.all_bound(t.needs)) return false;
      Value v = eval(*t.expr, i, "dtype");
      if (v.kind != ValueKind::DType || v.dtype != got) fail_dtype(i);
      return true;
    }
  }
  return true;
}

Value Checker::eval(const Expr& e, size_t input, const char* what) {
  try {
    return evaluate(e, cx);
  } catch (const EvalError& error) {
    fail_eval(error, "input '" + plan.names.inputs[input].name + "' " + what + " '" + e.text + "'");
  }
}

bool Checker::unify_shape(size_t i) {
  using Kind = BoundItem::Kind;
  const BoundShape& s = plan.inputs[i].shape;
  std::span<const int64_t> shape = state.inputs[i].shape;
  constexpr size_t kCached = 8;
  std::array<Value, kCached> lists;  // SpliceExpr values from the first pass

  // Pass 1: the length of every item. At most one splice may be of unknown length; it
  // absorbs the axes the others leave.
  size_t fixed = 0;
  int open = -1;
  for (size_t k = 0; k < s.items.size(); ++k) {
    const BoundItem& it = s.items[k];
    switch (it.kind) {
      case Kind::ConstSplice: fixed += it.dims.size(); break;
      case Kind::SpliceIndex:
        if (state.is_bound(it.slot)) fixed += state.indices[it.slot].size;
        else if (open < 0) open = int(k);
        else return false;
        break;
      case Kind::SpliceExpr:
        if (state.all_bound(it.needs)) {
          Value v = eval(*it.expr, i, "shape");
          if (!v.is_sequence()) fail_eval(EvalError("'*" + *it.text + "' is " + format_value(v) + ", not a list"), "input '" + plan.names.inputs[i].name + "' shape");
          if (k < kCached) lists[k] = v;
          fixed += v.size;
        } else if (open < 0) {
          open = int(k);
        } else {
          return false;
        }
        break;
      default: fixed += 1;
    }
  }
  if (open < 0 ? shape.size() != fixed : shape.size() < fixed) fail_rank(i, fixed, open < 0);
  const size_t open_len = shape.size() - fixed;

  // Pass 2: bind or compare, axis by axis.
  bool complete = true;
  size_t ax = 0;
  for (size_t k = 0; k < s.items.size(); ++k) {
    const BoundItem& it = s.items[k];
    switch (it.kind) {
      case Kind::Const:
        if (shape[ax] != it.value) fail_shape(i);
        ++ax;
        break;
      case Kind::ConstSplice:
        for (size_t j = 0; j < it.dims.size(); ++j)
          if (shape[ax + j] != it.dims[j]) fail_shape(i);
        ax += it.dims.size();
        break;
      case Kind::Dim:
        if (!state.is_bound(it.slot)) bind_dim(it.slot, shape[ax], i, ax);
        else if (state.indices[it.slot].i != shape[ax]) fail_bound_dim(i, it.slot, ax);
        ++ax;
        break;
      case Kind::Affine:
        if (!state.is_bound(it.slot)) solve(it, i, ax, it.value, it.offset);
        else if (it.value * state.indices[it.slot].i + it.offset != shape[ax]) fail_shape(i);
        ++ax;
        break;
      case Kind::Scalar:
        if (state.all_bound(it.needs)) {
          if (as_int(eval(*it.expr, i, "shape"), "an axis") != shape[ax]) fail_shape(i);
        } else if (!solve_scalar(it, i, ax)) {
          complete = false;
        }
        ++ax;
        break;
      case Kind::SpliceIndex: {
        if (int(k) == open) {
          state.indices[it.slot] = Value::int_list(state.arena.copy<int64_t>(shape.subspan(ax, open_len)));
          state.bound |= uint64_t(1) << it.slot;
          state.bound_by_input[it.slot] = int8_t(i);
          state.bound_by_axis[it.slot] = int8_t(ax);
          ax += open_len;
          break;
        }
        const Value& bound = state.indices[it.slot];
        for (uint32_t j = 0; j < bound.size; ++j)
          if (bound.ints[j] != shape[ax + j]) fail_bound_splice(i, it.slot, ax, bound.size);
        ax += bound.size;
        break;
      }
      case Kind::SpliceExpr: {
        if (int(k) == open) {
          complete = false;
          ax += open_len;
          break;
        }
        Value v = k < kCached ? lists[k] : eval(*it.expr, i, "shape");
        for (uint32_t j = 0; j < v.size; ++j)
          if (as_int(element(v, j), "an axis") != shape[ax + j]) fail_shape(i);
        ax += v.size;
        break;
      }
    }
  }
  return complete;
}

void Checker::bind_dim(uint32_t slot, int64_t value, size_t input, size_t axis) {
  state.indices[slot] = Value::integer(value);
  state.bound |= uint64_t(1) << slot;
  state.bound_by_input[slot] = int8_t(input);
  state.bound_by_axis[slot] = int8_t(axis);
}

void Checker::solve(const BoundItem& item, size_t input, size_t axis, int64_t a, int64_t offset) {
  int64_t rest = state.inputs[input].shape[axis] - offset;
  if (a == 0 || rest % a != 0 || rest / a < 0) fail_solve(input, item, axis, a, offset);
  bind_dim(item.slot, rest / a, input, axis);
}

// `2 * N + K` with K bound and N not: read a and e off the expression at N = 0 and
// N = 1, solve, then check the expression at the solution.
bool Checker::solve_scalar(const BoundItem& item, size_t input, size_t axis) {
  uint64_t unbound = item.needs & ~state.bound;
  if (std::popcount(unbound) != 1 || !(unbound & item.solvable)) return false;
  uint32_t slot = uint32_t(std::countr_zero(unbound));
  auto at = [&](int64_t m) {
    state.indices[slot] = Value::integer(m);
    state.bound |= unbound;
    int64_t v = as_int(eval(*item.expr, input, "shape"), "an axis");
    state.bound &= ~unbound;
    state.lets_done &= ~item.expr->deps.lets;  // lets read the trial value
    return v;
  };
  int64_t offset = at(0);
  int64_t a = at(1) - offset;
  BoundItem solved = item;
  solved.slot = slot;
  solve(solved, input, axis, a, offset);
  if (as_int(eval(*item.expr, input, "shape"), "an axis") != state.inputs[input].shape[axis]) fail_shape(input);
  return true;
}

void Checker::check_rules() {
  for (const BoundRule& rule : plan.rules) {
    bool ok;
    try {
      ok = truthy(evaluate(*rule.folded, cx));
    } catch (const EvalError& error) {
      if (error.names_items) fail(error.what());
      fail_rule(rule, error.what());
    }
    if (!ok) fail_rule(rule, nullptr);
  }
}

void Checker::check_dtype_combos() {
  const DTypeCombos& combos = plan.spec->combos;
  if (combos.rows.empty()) return;
  for (const auto& row : combos.rows) {
    bool match = true;
    for (size_t k = 0; k < row.size() && match; ++k) {
      uint32_t slot = combos.slots[k];
      match = !state.is_bound(slot) || state.indices[slot].dtype == row[k];  // unbound: an absent input's
    }
    if (match) return;
  }
  fail_combo();
}

void Checker::settle_device(std::span<const TensorDesc* const> inputs, std::span<const TensorDesc* const> outs) {
  const Device* device = nullptr;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i]) continue;
    if (plan.inputs[i].host) {
      if (!inputs[i]->device.is_cpu()) fail_host(i, inputs[i]->device);
      continue;
    }
    if (!device) device = &inputs[i]->device;
    else if (!(*device == inputs[i]->device)) fail_devices(inputs, outs);
  }
  for (size_t j = 0; j < outs.size(); ++j) {
    if (!outs[j] || plan.outputs[j].host) continue;
    if (!device) device = &outs[j]->device;
    else if (!(*device == outs[j]->device)) fail_devices(inputs, outs);
  }
  call.device_ = device ? *device : cpu_device();
}

void Checker::infer_outputs() {
  const size_t n = plan.outputs.size();
  if (call.outputs_.size() != n) call.outputs_.resize(n);
  cx.outputs = {call.outputs_.data(), n};
  for (size_t j = 0; j < n; ++j) {
    const BoundTensor& t = plan.outputs[j];
    InferredOutput& out = call.outputs_[j];
    out.device = t.host ? cpu_device() : call.device_;
    if (t.alias >= 0) {
      const SeenInput& in = state.inputs[size_t(t.alias)];
      if (!in.present)
        fail("output '" + plan.names.outputs[j].name + "' aliases input '" + plan.names.inputs[size_t(t.alias)].name +
             "', which is absent");
      out.dtype = in.dtype;
      out.shape.assign(in.shape.begin(), in.shape.end());
      continue;
    }
    try {
      materialize_shape(t.shape, cx, out.shape);
      out.dtype = materialize_dtype(t.dtype, cx);
    } catch (const EvalError& error) {
      fail_eval(error, "cannot infer output '" + plan.names.outputs[j].name + "' " + *t.shape.text);
    }
  }
}

void Checker::check_supplied(std::span<const TensorDesc* const> outs) {
  for (size_t j = 0; j < outs.size(); ++j) {
    if (!outs[j]) continue;
    if (!plan.outputs[j].buffer_out)
      fail("output '" + plan.names.outputs[j].name + "' does not take a caller buffer (no 'buffer: out' in the spec)");
    const InferredOutput& want = call.outputs_[j];
    const TensorDesc& got = *outs[j];
    if (got.dtype != want.dtype) fail_output(j, got, "out");
    if (!std::equal(got.shape.begin(), got.shape.end(), want.shape.begin(), want.shape.end())) fail_output(j, got, "out");
    if (!(got.device == want.device)) fail_output(j, got, "out");
  }
}

void Checker::check_produced(const BoundPlan& plan, const CallCheck& call, std::span<const TensorDesc* const> produced) {
  auto fail = [&](const std::string& message) { throw ValueError(plan.spec->name + ": " + message); };
  if (call.checked_by_ == nullptr) fail("check_outputs() needs a CallCheck that check() filled");
  if (produced.size() != plan.outputs.size())
    fail("the implementation returned " + std::to_string(produced.size()) + " outputs; the signature has " +
         std::to_string(plan.outputs.size()));
  for (size_t j = 0; j < produced.size(); ++j) {
    const InferredOutput& want = call.outputs_[j];
    if (!produced[j]) fail("the implementation did not produce output '" + plan.names.outputs[j].name + "'");
    const TensorDesc& got = *produced[j];
    if (got.dtype != want.dtype || !std::equal(got.shape.begin(), got.shape.end(), want.shape.begin(), want.shape.end()) ||
        !(got.device == want.device))
      fail_output_mismatch(plan, j, got, want, "the implementation's");
  }
}

}  // namespace tileops::manifest::detail
