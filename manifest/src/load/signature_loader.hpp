#pragma once
// The `signature:` block of an entry -> indices, params, tensors, lets, rules, combos.
#include "load/spec_context.hpp"
#include "load/yaml_reader.hpp"

namespace tileops::manifest::detail {

void load_signature(SpecContext& cx, const YAML::Node& node, const Where& where);

}  // namespace tileops::manifest::detail
