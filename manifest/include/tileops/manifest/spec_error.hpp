#pragma once
// Problems found while loading specs, all reported at once.
#include <tileops/errors.hpp>

#include <string>
#include <vector>

namespace tileops::manifest {

struct SpecProblem {
  std::string file;  // as the loader was given it; "<embedded>/norm.yaml" for built-in specs
  int line = 0;      // 1-based; 0 when the problem has no line (a missing file)
  std::string key;   // dotted path: "RMSNormFwdOp.signature.inputs.x.shape"
  std::string message;

  // "file:line: key: message"
  std::string str() const;
};

// Every problem of a spec set, one per line of what().
class SpecError : public ValueError {
 public:
  explicit SpecError(std::vector<SpecProblem> problems);
  const std::vector<SpecProblem>& problems() const noexcept { return problems_; }
  const char* kind() const noexcept override { return "SpecError"; }

 private:
  std::vector<SpecProblem> problems_;
};

}  // namespace tileops::manifest
