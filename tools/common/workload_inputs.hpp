#pragma once
// Concrete inputs for a manifest workload case, or for shapes a user gives.
#include <tileops/manifest/workload.hpp>
#include <tileops/op.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tileops::tooling {

// Random inputs for `c` on `device` (undefined tensors for omitted optional inputs),
// drawn from the case's value ranges: never all zeros, integer inputs in range.
std::vector<Tensor> make_inputs(const manifest::WorkloadCase& c, const Device& device,
                                uint64_t seed);

// `c` with some inputs given new shapes: an omitted optional input is then passed, in
// the dtype its signature gives it; value ranges (RoPE positions, block ids, ...) are
// derived again for the new shapes. ValueError names an unknown input or a call the
// signature refuses.
manifest::WorkloadCase reshaped(std::string_view op, const manifest::WorkloadCase& c,
                                const std::vector<std::pair<std::string, Dims>>& shapes);

// The cases of `op` (every row of its spec, expanded); ValueError when it has none.
std::vector<manifest::WorkloadCase> cases_of(std::string_view op);

}  // namespace tileops::tooling
