#include <tileops/manifest/spec_error.hpp>

namespace tileops::manifest {
namespace {

std::string format(const std::vector<SpecProblem>& problems) {
  std::string out = "invalid manifest: " + std::to_string(problems.size()) +
                    (problems.size() == 1 ? " problem" : " problems");
  for (const SpecProblem& p : problems) out += "\n" + p.str();
  return out;
}

}  // namespace

std::string SpecProblem::str() const {
  std::string out = file;
  if (line > 0) out += ":" + std::to_string(line);
  out += ": ";
  if (!key.empty()) out += key + ": ";
  return out + message;
}

SpecError::SpecError(std::vector<SpecProblem> problems) : ValueError(format(problems)), problems_(std::move(problems)) {}

}  // namespace tileops::manifest
