#pragma once
// An independent reference for every op of the conformance table, in double precision:
// plain loops written from the op catalogue (docs/design/op-catalogue.md) and the specs,
// sharing no code with cpu_ref. Inputs are the values the op received (already rounded
// to their dtypes); outputs are row-major values of the expected output shapes.
#include "cases.hpp"

#include <vector>

namespace conformance {

using Buffer = std::vector<double>;

// One Buffer per output of `c` (signature order); `inputs` holds one Buffer per input
// (empty for an omitted one).
std::vector<Buffer> reference(const OpCase& c, const std::vector<Buffer>& inputs);

// `values` rounded to `dtype` as storing them in a tensor of that dtype would.
Buffer round_to(tileops::DType dtype, const Buffer& values);

}  // namespace conformance
