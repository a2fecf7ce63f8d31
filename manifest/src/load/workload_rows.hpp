#pragma once
// `workloads:` rows -> WorkloadRow (values checked against the signature; expansion
// into cases happens later, see workloads.cpp).
#include "load/spec_context.hpp"
#include "load/yaml_reader.hpp"

namespace tileops::manifest::detail {

void load_workloads(SpecContext& cx, const YAML::Node& node, const Where& where);

// Labels match [A-Za-z0-9._-]{1,28}.
bool valid_label(const std::string& label);

}  // namespace tileops::manifest::detail
