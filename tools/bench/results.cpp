#include "results.hpp"

#include <algorithm>

namespace tileops::bench {

std::string_view status_name(CaseStatus status) {
  switch (status) {
    case CaseStatus::ok: return "ok";
    case CaseStatus::failed: return "failed";
    case CaseStatus::skipped: return "skipped";
  }
  return "?";
}

size_t BenchResult::count(CaseStatus status) const {
  return size_t(std::count_if(cases.begin(), cases.end(), [&](const CaseResult& c) { return c.status == status; }));
}

}  // namespace tileops::bench
