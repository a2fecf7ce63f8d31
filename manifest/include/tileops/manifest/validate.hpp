#pragma once
// The static checks of MANIFEST.md's "Validator" section that need no runtime.
#include <tileops/manifest/manifest.hpp>

#include <functional>
#include <string>
#include <vector>

namespace tileops::manifest {

struct Diagnostic {
  std::string op;     // empty for a manifest-wide problem
  std::string check;  // which check: "type-family", "inference", "workload", ...
  std::string file;
  int line = 0;
  std::string message;

  // "file:line: op: [check] message"
  std::string str() const;
};

struct ValidateOptions {
  // For `status: implemented` ops: does the in-tree path or a shipped plugin serve it?
  // Filled in by the runtime; when empty, the check is skipped.
  std::function<bool(const OpSpec&)> is_served;
};

std::vector<Diagnostic> validate(const Manifest& manifest, const ValidateOptions& options = {});

}  // namespace tileops::manifest
