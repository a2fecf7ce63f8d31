#pragma once
// The manifest as JSON, for the docs site (support matrix, API reference) and tools.
#include <tileops/manifest/manifest.hpp>

#include <string>

namespace tileops::manifest {

// {"ops": [{"name", "family", "status", "ref_api", "doc", "roof_key",
//           "params": [{"name", "type", "default"?, "kw_only"}],
//           "inputs": [{"name", "dtype", "shape", "optional", "mutated", "write_only",
//                       "contiguous", "host"}],
//           "outputs": [{"name", "dtype", "shape", "buffer_out", "alias"?}],
//           "composition": [op names], "workloads": [case ids]}],
//  "type_families": [names]}
// "optional" and the other flags are true, false, or the expression text.
std::string manifest_json(const Manifest& manifest, int indent = 2);

}  // namespace tileops::manifest
