#include <tileops/manifest/validate.hpp>

#include "validate/checks.hpp"

namespace tileops::manifest {

std::string Diagnostic::str() const {
  std::string out = file;
  if (line > 0) out += ":" + std::to_string(line);
  out += ": ";
  if (!op.empty()) out += op + ": ";
  return out + "[" + check + "] " + message;
}

std::vector<Diagnostic> validate(const Manifest& manifest, const ValidateOptions& options) {
  detail::Diagnostics out;
  detail::check_type_families(manifest, out);
  for (const OpSpec& op : manifest.ops()) {
    detail::check_names(op, out);
    detail::check_inference(op, out);
    detail::check_workloads(manifest, op, out);
    if (op.implemented() && options.is_served && !options.is_served(op))
      out.add(op, "served", "status is implemented, but neither the in-tree path nor a shipped plugin serves it");
  }
  return std::move(out.list);
}

}  // namespace tileops::manifest
