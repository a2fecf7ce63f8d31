#pragma once
// An op's spec as the loader compiles it: the public metadata plus expressions with
// names resolved to slots and shapes turned into unification templates.
#include "expr/eval.hpp"
#include "expr/expr.hpp"

#include <tileops/manifest/op_spec.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tileops::manifest::detail {

enum class ItemKind : uint8_t {
  Dim,          // a Dim index alone: binds or compares one axis
  Scalar,       // any other int expression: compared, or solved for the one index it
                // is linear in when that index is the only one unbound (`2 * N`)
  SpliceIndex,  // *S with S a Shape index: binds or compares the axes it absorbs
  SpliceExpr,   // *e with e a list param or a list-valued expression: compared
};

struct ShapeItem {
  ItemKind kind = ItemKind::Dim;
  std::string text;              // as written, without the '*' of a splice
  uint32_t slot = 0;             // Dim, SpliceIndex
  std::unique_ptr<Expr> expr;    // Scalar, SpliceExpr
  uint64_t solvable = 0;         // Scalar: the indices it is linear in (appearing once)
};

struct ShapeTemplate {
  std::string text;
  std::vector<ShapeItem> items;
};

// `Mat[trans_a, M, K]`: a case per value of the selector, chosen at bind.
struct FamilyShape {
  std::string family;
  std::unique_ptr<Expr> selector;  // reads only params
  std::vector<std::pair<ParamValue, ShapeTemplate>> cases;
};

struct DTypeTemplate {
  bool binds_index = false;   // the text is a DType index alone
  uint32_t slot = 0;
  std::unique_ptr<Expr> expr;  // otherwise: evaluated (a constant, a dtype param, promote_int_to_float(T))
};

struct CompiledFlag {
  bool value = false;
  std::unique_ptr<Expr> expr;  // reads only params; settled at bind
};

struct CompiledTensor {
  ShapeTemplate shape;                // unless `family` is set
  std::optional<FamilyShape> family;
  DTypeTemplate dtype;
  CompiledFlag optional, mutated, write_only, contiguous;
  std::unique_ptr<Expr> values_low, values_high;
};

struct CompiledRule {
  std::string text;
  std::unique_ptr<Expr> expr;
  int line = 0;
};

struct DTypeCombos {
  std::vector<uint32_t> slots;            // DType indices the rows range over
  std::vector<std::vector<DType>> rows;   // one dtype per slot
  int line = 0;
};

struct CompiledStep {
  std::vector<std::pair<std::string, std::unique_ptr<Expr>>> params;  // over the composite's params
};

struct WorkloadRow {
  int line = 0;
  std::string label;
  std::vector<std::pair<uint32_t, ParamValue>> indices;  // Dim: int; Shape: list of ints
  Params params;
  uint64_t some = 0;  // optional inputs passed
  // Each case: DType index or dtype param name -> dtype, in the order written.
  std::vector<std::vector<std::pair<std::string, DType>>> dtype_cases;
};

struct CompiledSpec {
  // Metadata (the public view).
  std::string name, family, file, ref_api, doc;
  int line = 0;
  bool implemented = false;
  std::vector<IndexSpec> indices;
  std::vector<ParamSpec> params;
  std::vector<TensorSpec> inputs, outputs;
  std::vector<std::string> rule_texts;
  std::vector<std::pair<std::string, std::string>> let_texts;
  std::vector<std::string> let_names;
  RooflineSpec roofline;
  std::vector<CompositionStep> composition;

  // Compiled.
  std::vector<CompiledTensor> input_templates, output_templates;
  std::vector<std::unique_ptr<Expr>> lets;  // in order; each may read earlier ones
  std::vector<CompiledRule> rules;
  DTypeCombos combos;
  std::unique_ptr<Expr> flops, bytes;
  std::vector<CompiledStep> steps;
  std::vector<WorkloadRow> workloads;

  NameTable names() const { return {params, indices, inputs, outputs, let_names}; }
};

}  // namespace tileops::manifest::detail
