#pragma once
// C++ op classes from the manifest: one header per family (tileops/ops/<family>.hpp)
// declaring a typed class per op that wraps the generic runtime tileops::Op, plus
// tileops/ops/all.hpp.
#include <tileops/manifest/manifest.hpp>

#include <map>
#include <string>

namespace tileops::manifest::codegen {

// Relative path ("tileops/ops/norm.hpp") -> file contents.
std::map<std::string, std::string> generate_op_headers(const Manifest& manifest);

}  // namespace tileops::manifest::codegen
