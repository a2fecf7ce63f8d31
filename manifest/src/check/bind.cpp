// OpSpec::bind: settle the params, then compile the signature for them.
#include "check/bound_plan.hpp"
#include "expr/fold.hpp"
#include "load/param_types.hpp"
#include "nearest.hpp"

#include <tileops/errors.hpp>
#include <tileops/manifest/bound_signature.hpp>

#include <bit>

namespace tileops::manifest::detail {

std::vector<ParamValue> settle_params(const CompiledSpec& spec, const Params& given) {
  const auto& specs = spec.params;
  std::vector<std::optional<ParamValue>> values(specs.size());
  std::vector<std::string> names;
  for (const ParamSpec& p : specs) names.push_back(p.name);
  for (const Param& param : given) {
    auto it = std::find(names.begin(), names.end(), param.name);
    if (it == names.end()) {
      std::string message = spec.name + ": unknown parameter '" + param.name + "'";
      if (auto hint = did_you_mean(param.name, names)) message += "; did you mean '" + *hint + "'?";
      else if (names.empty()) message += "; " + spec.name + " takes no parameters";
      else {
        message += "; parameters are ";
        for (size_t k = 0; k < names.size(); ++k) message += (k ? ", " : "") + names[k];
      }
      throw ValueError(message);
    }
    size_t k = size_t(it - names.begin());
    if (values[k]) throw ValueError(spec.name + ": parameter '" + param.name + "' given twice");
    std::string error;
    values[k] = coerce_param(specs[k], param.value, error);
    if (!values[k]) throw ValueError(spec.name + ": parameter '" + param.name + "' " + error);
  }
  std::vector<ParamValue> settled;
  settled.reserve(specs.size());
  for (size_t k = 0; k < specs.size(); ++k) {
    if (values[k]) settled.push_back(std::move(*values[k]));
    else if (specs[k].default_value) settled.push_back(*specs[k].default_value);
    else throw ValueError(spec.name + ": missing required parameter '" + specs[k].name + "'");
  }
  return settled;
}

namespace {

class PlanBuilder {
 public:
  PlanBuilder(const CompiledSpec& spec, std::vector<ParamValue> settled)
      : spec_(spec), plan_(std::make_unique<BoundPlan>()), state_(std::make_unique<CallState>()) {
    plan_->spec = &spec;
    plan_->settled = std::move(settled);
    for (const ParamValue& v : plan_->settled) plan_->param_values.push_back(view_of(v));
    plan_->names = spec.names();
    // Folding evaluates only params-only subtrees; lets they read are the spec's own.
    for (const auto& let : spec.lets) spec_lets_.push_back(let.get());
    cx_.params = plan_->param_values;
    cx_.state = state_.get();
    cx_.lets = spec_lets_;
    cx_.names = &plan_->names;
  }

  std::unique_ptr<BoundPlan> run() {
    for (const auto& let : spec_.lets) plan_->lets.push_back(fold(*let));
    for (size_t k = 0; k < spec_.inputs.size(); ++k)
      plan_->inputs.push_back(tensor(spec_.inputs[k], spec_.input_templates[k], "input"));
    for (size_t k = 0; k < spec_.outputs.size(); ++k)
      plan_->outputs.push_back(tensor(spec_.outputs[k], spec_.output_templates[k], "output"));
    for (const CompiledRule& rule : spec_.rules) this->rule(rule);
    if (spec_.flops) plan_->flops = fold(*spec_.flops);
    if (spec_.bytes) plan_->bytes = fold(*spec_.bytes);
    for (size_t k = 0; k < spec_.steps.size(); ++k) plan_->step_params.push_back(step_params(k));
    return std::move(plan_);
  }

 private:
  const Expr* fold(const Expr& e) { return &plan_->exprs.emplace_back(fold_params(e, cx_)); }

  Value evaluate_now(const Expr& e, const std::string& what) {
    try {
      state_->reset();
      return evaluate(e, cx_);
    } catch (const EvalError& error) {
      throw ValueError(spec_.name + ": " + what + ": " + error.what());
    }
  }

  bool settle_flag(const CompiledFlag& flag, const std::string& what) {
    if (!flag.expr) return flag.value;
    return truthy(evaluate_now(*flag.expr, what + " '" + flag.expr->text + "'"));
  }

  BoundTensor tensor(const TensorSpec& meta, const CompiledTensor& c, const char* kind) {
    std::string what = std::string(kind) + " '" + meta.name + "'";
    BoundTensor t;
    t.optional = settle_flag(c.optional, what + " optional");
    t.mutated = settle_flag(c.mutated, what + " mutated");
    t.write_only = settle_flag(c.write_only, what + " write_only");
    t.contiguous = settle_flag(c.contiguous, what + " contiguous");
    t.host = meta.host;
    t.buffer_out = meta.buffer_out;
    t.alias = meta.alias;
    t.shape = shape(c, what);
    t.dtype = dtype(c.dtype, meta);
    return t;
  }

  BoundShape shape(const CompiledTensor& c, const std::string& what) {
    if (!c.family) return shape(c.shape, what);
    Value selector = evaluate_now(*c.family->selector, what + " shape");
    for (const auto& [when, tmpl] : c.family->cases)
      if (equal(view_of(when), selector)) return shape(tmpl, what);
    throw ValueError(spec_.name + ": " + what + ": no case of " + c.family->family + " matches " +
                     c.family->selector->text + " = " + format_value(selector));
  }

  BoundShape shape(const ShapeTemplate& tmpl, const std::string& what) {
    BoundShape out;
    out.text = &tmpl.text;
    for (const ShapeItem& item : tmpl.items) {
      BoundItem b;
      b.slot = item.slot;
      b.text = &item.text;
      switch (item.kind) {
        case ItemKind::Dim: break;
        case ItemKind::SpliceIndex: b.kind = BoundItem::Kind::SpliceIndex; break;
        case ItemKind::Scalar: scalar(item, b, what); break;
        case ItemKind::SpliceExpr: splice(item, b, what); break;
      }
      out.items.push_back(b);
    }
    return out;
  }

  void scalar(const ShapeItem& item, BoundItem& b, const std::string& what) {
    if (item.expr->root_node().params_only) {
      b.kind = BoundItem::Kind::Const;
      b.value = as_int(evaluate_now(*item.expr, what + " axis '" + item.text + "'"), "an axis");
      return;
    }
    b.kind = BoundItem::Kind::Scalar;
    b.expr = fold(*item.expr);
    b.needs = b.expr->deps.indices;
    b.solvable = item.solvable;
    const Deps& d = b.expr->deps;
    bool one_index = d.indices && !(d.indices & (d.indices - 1)) && (d.indices & item.solvable);
    if (one_index && !d.inputs && !d.outputs && !d.lets) affine(b, std::countr_zero(d.indices));
  }

  // a * M + e with constants a and e: read them off at M = 0 and M = 1.
  void affine(BoundItem& b, int slot) {
    try {
      state_->reset();
      state_->bound = uint64_t(1) << slot;
      state_->indices[size_t(slot)] = Value::integer(0);
      int64_t e = as_int(evaluate(*b.expr, cx_), "");
      state_->indices[size_t(slot)] = Value::integer(1);
      int64_t a = as_int(evaluate(*b.expr, cx_), "") - e;
      state_->reset();
      if (a == 0) return;
      b.kind = BoundItem::Kind::Affine;
      b.slot = uint32_t(slot);
      b.value = a;
      b.offset = e;
    } catch (const EvalError&) {
      state_->reset();  // stays a general Scalar
    }
  }

  void splice(const ShapeItem& item, BoundItem& b, const std::string& what) {
    if (item.expr->root_node().params_only) {
      Value v = evaluate_now(*item.expr, what + " '*" + item.text + "'");
      if (!v.is_sequence())
        throw ValueError(spec_.name + ": " + what + ": '*" + item.text + "' is " + format_value(v) + ", not a list");
      std::vector<int64_t> dims;
      for (uint32_t k = 0; k < v.size; ++k) dims.push_back(as_int(element(v, k), "an axis"));
      b.kind = BoundItem::Kind::ConstSplice;
      b.dims = plan_->dim_lists.emplace_back(std::move(dims));
      return;
    }
    b.kind = BoundItem::Kind::SpliceExpr;
    b.expr = fold(*item.expr);
    b.needs = b.expr->deps.indices;
  }

  BoundDType dtype(const DTypeTemplate& c, const TensorSpec& meta) {
    BoundDType out;
    out.text = &meta.dtype_text;
    if (c.binds_index) {
      out.kind = BoundDType::Kind::BindIndex;
      out.slot = c.slot;
    } else if (c.expr && c.expr->root_node().params_only) {
      Value v = evaluate_now(*c.expr, "tensor '" + meta.name + "' dtype");
      if (v.kind != ValueKind::DType) throw ValueError(spec_.name + ": dtype of '" + meta.name + "' is " + format_value(v));
      out.value = v.dtype;
    } else if (c.expr) {
      out.kind = BoundDType::Kind::Expr;
      out.expr = fold(*c.expr);
      out.needs = out.expr->deps.indices;
    }
    return out;
  }

  // Step params read only the composite's params (the loader made sure).
  Params step_params(size_t k) {
    Params out;
    for (const auto& [name, expr] : spec_.steps[k].params) {
      std::string what = "composition step " + std::to_string(k + 1) + " param '" + name + "'";
      out.emplace_back(name, to_param_value(evaluate_now(*expr, what)));
    }
    return out;
  }

  ParamValue to_param_value(const Value& v) {
    switch (v.kind) {
      case ValueKind::None: return std::monostate{};
      case ValueKind::Bool: return v.b;
      case ValueKind::Int: return v.i;
      case ValueKind::Float: return v.f;
      case ValueKind::Str: return *v.s;
      case ValueKind::DType: return v.dtype;
      case ValueKind::Ints: return std::vector<int64_t>(v.ints, v.ints + v.size);
      case ValueKind::Floats: return std::vector<double>(v.floats, v.floats + v.size);
      case ValueKind::Tuple: break;
    }
    throw ValueError(spec_.name + ": a composition step param is a tuple of mixed values: " + format_value(v));
  }

  void rule(const CompiledRule& r) {
    if (!r.expr->root_node().params_only) {
      plan_->rules.push_back({fold(*r.expr), r.expr.get(), &r.text});
      return;
    }
    state_->reset();
    std::string failure;
    try {
      if (truthy(evaluate(*r.expr, cx_))) return;
    } catch (const EvalError& error) {
      failure = std::string(": ") + error.what();
    }
    std::string values = describe_names(*r.expr, cx_);
    throw ValueError(spec_.name + ": shape rule '" + r.text + "' fails" + failure + (values.empty() ? "" : ": " + values));
  }

  const CompiledSpec& spec_;
  std::unique_ptr<BoundPlan> plan_;
  std::unique_ptr<CallState> state_;
  std::vector<const Expr*> spec_lets_;
  EvalContext cx_;
};

}  // namespace

std::unique_ptr<BoundPlan> build_plan(const CompiledSpec& spec, std::vector<ParamValue> settled) {
  return PlanBuilder(spec, std::move(settled)).run();
}

}  // namespace tileops::manifest::detail
