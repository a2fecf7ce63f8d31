#pragma once
// A static mirror of the checker's unification: which indices the present inputs
// bind, for one pattern of present optional inputs and one case per type family
// application. The loader uses it to reject a shape whose splices no input can size;
// the validator to prove an inference plan exists for every output.
#include "compiled_spec.hpp"

#include <string>
#include <vector>

namespace tileops::manifest::detail {

struct Unification {
  uint64_t bound = 0;            // indices some present input fixes
  uint32_t unresolved = 0;       // present inputs the checker could not finish
  uint32_t unsized = 0;          // ... of which because two splices have unknown lengths
};

// `present`: bit i for input i. `cases`: per input, the family case to assume (ignored
// for inputs without a family).
Unification simulate_unification(const CompiledSpec& spec, uint32_t present, const std::vector<size_t>& cases);

// The shape template an input or output uses for a family case choice.
const ShapeTemplate& shape_template(const CompiledTensor& t, size_t family_case);

// The indices a shape or dtype needs to be computed (not solved): union over items.
uint64_t indices_needed(const ShapeTemplate& shape);
uint64_t indices_needed(const DTypeTemplate& dtype);

// "M, K" for a mask of indices.
std::string index_names(const CompiledSpec& spec, uint64_t mask);

// Inputs whose `optional` may be true for some params (a literal true or an expression).
uint32_t maybe_optional_inputs(const CompiledSpec& spec);

}  // namespace tileops::manifest::detail
