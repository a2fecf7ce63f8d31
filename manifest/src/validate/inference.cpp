#include "validate/inference.hpp"

#include <bit>

namespace tileops::manifest::detail {
namespace {

uint64_t bit(uint32_t slot) { return uint64_t(1) << slot; }

// One input, as Checker::unify_input does it: true when finished.
bool simulate_input(const CompiledSpec& spec, size_t i, size_t family_case, uint64_t& known, bool& unsized) {
  const CompiledTensor& t = spec.input_templates[i];
  bool complete = true;
  if (t.dtype.binds_index) known |= bit(t.dtype.slot);
  else if (t.dtype.expr && (t.dtype.expr->deps.indices & ~known)) complete = false;

  const ShapeTemplate& shape = shape_template(t, family_case);
  int open = -1;
  for (size_t k = 0; k < shape.items.size(); ++k) {
    const ShapeItem& it = shape.items[k];
    bool unknown_length = (it.kind == ItemKind::SpliceIndex && !(known & bit(it.slot))) ||
                          (it.kind == ItemKind::SpliceExpr && (it.expr->deps.indices & ~known));
    if (!unknown_length) continue;
    if (open >= 0) {
      unsized = true;
      return false;
    }
    open = int(k);
  }
  for (size_t k = 0; k < shape.items.size(); ++k) {
    const ShapeItem& it = shape.items[k];
    switch (it.kind) {
      case ItemKind::Dim:
      case ItemKind::SpliceIndex: known |= bit(it.slot); break;
      case ItemKind::Scalar: {
        uint64_t unbound = it.expr->deps.indices & ~known;
        if (!unbound) break;
        if (std::popcount(unbound) == 1 && (unbound & it.solvable)) known |= unbound;
        else complete = false;
        break;
      }
      case ItemKind::SpliceExpr:
        if (int(k) == open) complete = false;
        break;
    }
  }
  return complete;
}

}  // namespace

const ShapeTemplate& shape_template(const CompiledTensor& t, size_t family_case) {
  if (!t.family || t.family->cases.empty()) return t.shape;
  return t.family->cases[std::min(family_case, t.family->cases.size() - 1)].second;
}

Unification simulate_unification(const CompiledSpec& spec, uint32_t present, const std::vector<size_t>& cases) {
  Unification out;
  uint32_t pending = 0;
  for (size_t i = 0; i < spec.inputs.size(); ++i) {
    if (!(present >> i & 1)) continue;
    bool unsized = false;
    if (!simulate_input(spec, i, cases[i], out.bound, unsized)) pending |= uint32_t(1) << i;
  }
  while (pending) {
    uint32_t before = pending;
    uint32_t unsized_now = 0;
    for (uint32_t rest = pending; rest; rest &= rest - 1) {
      size_t i = size_t(std::countr_zero(rest));
      bool unsized = false;
      if (simulate_input(spec, i, cases[i], out.bound, unsized)) pending &= ~(uint32_t(1) << i);
      else if (unsized) unsized_now |= uint32_t(1) << i;
    }
    if (pending == before) {
      out.unresolved = pending;
      out.unsized = unsized_now;
      break;
    }
  }
  return out;
}

uint64_t indices_needed(const ShapeTemplate& shape) {
  uint64_t need = 0;
  for (const ShapeItem& it : shape.items) {
    if (it.kind == ItemKind::Dim || it.kind == ItemKind::SpliceIndex) need |= bit(it.slot);
    else if (it.expr) need |= it.expr->deps.indices;
  }
  return need;
}

uint64_t indices_needed(const DTypeTemplate& dtype) {
  if (dtype.binds_index) return bit(dtype.slot);
  return dtype.expr ? dtype.expr->deps.indices : 0;
}

std::string index_names(const CompiledSpec& spec, uint64_t mask) {
  std::string out;
  for (; mask; mask &= mask - 1) out += (out.empty() ? "" : ", ") + spec.indices[size_t(std::countr_zero(mask))].name;
  return out;
}

uint32_t maybe_optional_inputs(const CompiledSpec& spec) {
  uint32_t out = 0;
  for (size_t i = 0; i < spec.inputs.size(); ++i)
    if (spec.inputs[i].optional.value || spec.inputs[i].optional.is_expr()) out |= uint32_t(1) << i;
  return out;
}

}  // namespace tileops::manifest::detail
