#pragma once
// types.yaml -> type families.
#include "load/yaml_reader.hpp"

#include <tileops/manifest/manifest.hpp>

#include <vector>

namespace tileops::manifest::detail {

std::vector<TypeFamily> load_type_families(const YAML::Node& root, const std::string& file, Problems& problems);

}  // namespace tileops::manifest::detail
