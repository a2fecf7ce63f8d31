#pragma once
// A signature compiled for one set of params: everything that reads only params is
// already a constant (a `*normalized_shape` splice is a dim list, an `optional:` expr a
// bool, a type family application its selected case), so the per-call check walks
// small arrays and evaluates only what truly depends on the call.
#include "compiled_spec.hpp"
#include "expr/eval.hpp"

#include <deque>
#include <span>
#include <string>
#include <vector>

namespace tileops::manifest::detail {

struct BoundItem {
  enum class Kind : uint8_t {
    Const,        // value
    ConstSplice,  // dims
    Dim,          // slot
    Affine,       // a * index(slot) + offset; a and offset constants
    Scalar,       // expr, compared; solved for one unbound `solvable` index
    SpliceIndex,  // slot
    SpliceExpr,   // expr (a list)
  };
  Kind kind = Kind::Dim;
  uint32_t slot = 0;
  int64_t value = 0;   // Const; Affine: the coefficient
  int64_t offset = 0;  // Affine
  std::span<const int64_t> dims;
  const Expr* expr = nullptr;
  uint64_t needs = 0;     // indices the expression reads
  uint64_t solvable = 0;  // Scalar
  const std::string* text = nullptr;  // the item as written, for messages
};

struct BoundShape {
  const std::string* text = nullptr;
  std::vector<BoundItem> items;
};

struct BoundDType {
  enum class Kind : uint8_t { BindIndex, Const, Expr } kind = Kind::Const;
  uint32_t slot = 0;
  DType value;
  const Expr* expr = nullptr;
  uint64_t needs = 0;
  const std::string* text = nullptr;
};

struct BoundTensor {
  BoundShape shape;
  BoundDType dtype;
  bool optional = false, mutated = false, write_only = false, contiguous = false;
  bool host = false, buffer_out = false;
  int alias = -1;
};

struct BoundRule {
  const Expr* folded;
  const Expr* original;  // for naming values in messages
  const std::string* text;
};

struct BoundPlan {
  const CompiledSpec* spec = nullptr;
  std::vector<ParamValue> settled;  // manifest order
  std::vector<Value> param_values;  // views into `settled`
  std::vector<BoundTensor> inputs, outputs;
  std::vector<const Expr*> lets;
  std::vector<BoundRule> rules;
  const Expr* flops = nullptr;
  const Expr* bytes = nullptr;
  std::vector<Params> step_params;  // a composite's steps, settled
  NameTable names;

  // Storage the pointers above refer to (deques: growth never moves elements).
  std::deque<Expr> exprs;
  std::deque<std::vector<int64_t>> dim_lists;
};

// Builds the plan for `params` (already settled, in manifest order). Throws ValueError
// when a rule over params fails or a flag cannot be decided.
std::unique_ptr<BoundPlan> build_plan(const CompiledSpec& spec, std::vector<ParamValue> settled);

// `params` as given by a user -> settled values in manifest order. Throws ValueError.
std::vector<ParamValue> settle_params(const CompiledSpec& spec, const Params& params);

}  // namespace tileops::manifest::detail
