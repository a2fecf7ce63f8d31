#pragma once
// One entry of a family file -> CompiledSpec.
#include "compiled_spec.hpp"
#include "load/problems.hpp"
#include "load/yaml_reader.hpp"

#include <tileops/manifest/manifest.hpp>

#include <memory>
#include <span>

namespace tileops::manifest::detail {

std::unique_ptr<CompiledSpec> load_spec(const Entry& entry, const std::string& file, const std::string& file_family,
                                        std::span<const TypeFamily> families, Problems& problems);

// Op names match ^[A-Z][A-Za-z0-9]*(Fwd|Bwd)Op$.
bool valid_op_name(const std::string& name);

}  // namespace tileops::manifest::detail
