#pragma once
// Per-row workload expansion (OpSpec::workload_cases does every row; the validator
// wants each failing row reported on its own).
#include <tileops/manifest/op_spec.hpp>
#include <tileops/manifest/workload.hpp>

#include <vector>

namespace tileops::manifest::detail {

// The cases of row `row`; throws ValueError("row '<label>': <what failed>") when it
// does not instantiate.
std::vector<WorkloadCase> expand_row(const OpSpec& op, size_t row);

}  // namespace tileops::manifest::detail
