#pragma once
// Compiles and evaluates expressions against a small hand-built scope, for tests of
// the expression language itself.
#include "expr/eval.hpp"
#include "expr/lexer.hpp"
#include "expr/parser.hpp"
#include "expr/resolve.hpp"
#include "expr/value_ops.hpp"
#include "load/param_types.hpp"

#include <memory>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace tileops::manifest::test {

using namespace tileops::manifest::detail;
using tileops::manifest::ParamKind;

class ExprHarness {
 public:
  ExprHarness() : state_(std::make_unique<CallState>()) {}

  // A param and its value.
  ExprHarness& param(const std::string& name, ParamKind kind, ParamValue value, bool nullable = false) {
    ParamSpec p;
    p.name = name;
    p.kind = kind;
    p.nullable = nullable;
    values_.push_back(std::move(value));
    scope_.add(name, Binding(RefKind::Param, uint32_t(params_.size()), static_type(kind), nullable));
    params_.push_back(p);
    return *this;
  }
  // A Dim index with a value (nullopt: unbound).
  ExprHarness& dim(const std::string& name, std::optional<int64_t> value) {
    uint32_t slot = add_index(name, IndexKind::Dim, StaticType::Int);
    if (value) bind(slot, Value::integer(*value));
    return *this;
  }
  ExprHarness& shape(const std::string& name, std::vector<int64_t> value) {
    uint32_t slot = add_index(name, IndexKind::Shape, StaticType::Ints);
    bind(slot, Value::int_list(owned_.emplace_back(std::move(value))));
    return *this;
  }
  ExprHarness& dtype(const std::string& name, DType value) {
    bind(add_index(name, IndexKind::DType, StaticType::DType), Value::dtype_of(value));
    return *this;
  }
  // An input tensor (nullopt shape: absent).
  ExprHarness& input(const std::string& name, std::optional<std::vector<int64_t>> shape, DType dtype = dtypes::float32) {
    uint32_t slot = uint32_t(inputs_.size());
    TensorSpec t;
    t.name = name;
    inputs_.push_back(t);
    scope_.add(name, Binding(RefKind::Input, slot, StaticType::Tensor, true));
    if (shape) state_->inputs[slot] = {true, dtype, owned_.emplace_back(std::move(*shape))};
    return *this;
  }

  // Compile problems, joined ("" when it compiles).
  std::string problems(const std::string& text, ResolveOptions options = {}) {
    try {
      Expr e = parse_expression(text);
      std::string out;
      for (const auto& p : resolve(e, scope_, options)) out += (out.empty() ? "" : "; ") + p.message;
      return out;
    } catch (const SyntaxError& error) {
      return std::string("syntax: ") + error.what();
    }
  }

  // The value, formatted ("3", "[2, 3]", "true"); evaluation errors as "error: ...".
  std::string eval(const std::string& text) {
    auto& e = exprs_.emplace_back(parse_expression(text));
    auto found = resolve(e, scope_, {true});
    if (!found.empty()) return "compile: " + found[0].message;
    std::vector<Value> views;
    for (const auto& v : values_) views.push_back(view_of(v));
    NameTable names{params_, indices_, inputs_, {}, {}};
    EvalContext cx{views, state_.get(), {}, {}, &names};
    state_->arena.reset();
    try {
      return format_value(evaluate(e, cx));
    } catch (const EvalError& error) {
      return std::string("error: ") + error.what();
    }
  }

 private:
  static StaticType static_type(ParamKind kind) {
    switch (kind) {
      case ParamKind::Int: return StaticType::Int;
      case ParamKind::Float: return StaticType::Float;
      case ParamKind::Bool: return StaticType::Bool;
      case ParamKind::IntList: return StaticType::Ints;
      case ParamKind::FloatList: return StaticType::Floats;
      case ParamKind::DType: return StaticType::DType;
      default: return StaticType::Str;
    }
  }
  uint32_t add_index(const std::string& name, IndexKind kind, StaticType type) {
    uint32_t slot = uint32_t(indices_.size());
    IndexSpec i;
    i.name = name;
    i.kind = kind;
    indices_.push_back(i);
    scope_.add(name, Binding(RefKind::Index, slot, type));
    return slot;
  }
  void bind(uint32_t slot, Value v) {
    state_->indices[slot] = v;
    state_->bound |= uint64_t(1) << slot;
  }

  Scope scope_;
  std::vector<ParamSpec> params_;
  std::vector<ParamValue> values_;
  std::vector<IndexSpec> indices_;
  std::vector<TensorSpec> inputs_;
  std::deque<std::vector<int64_t>> owned_;
  std::deque<Expr> exprs_;
  std::unique_ptr<CallState> state_;
};

}  // namespace tileops::manifest::test
