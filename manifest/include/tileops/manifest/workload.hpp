#pragma once
// Workload rows expanded into concrete calls: params, and each input's dtype, shape and
// value range (the device is the caller's choice).
#include <tileops/dtype.hpp>
#include <tileops/params.hpp>
#include <tileops/shape.hpp>

#include <optional>
#include <string>
#include <vector>

namespace tileops::manifest {

struct OwnedTensorDesc {
  DType dtype;
  Dims shape;
};

// Where an input's values are drawn from.
struct ValueRange {
  enum class Distribution : uint8_t { Uniform, Normal };
  Distribution distribution = Distribution::Normal;
  double low = 0;   // Uniform: inclusive lower bound; Normal: the mean
  double high = 1;  // Uniform: exclusive upper bound; Normal: the standard deviation
};

struct WorkloadCase {
  std::string id;     // "<label>-<dtype values>": "llama-8b-prefill-float16"
  std::string label;  // the row's label
  Params params;      // the row's params and the case's dtype params
  Params indices;     // the index values the row and case give (Dim, Shape, DType)
  std::vector<std::optional<OwnedTensorDesc>> inputs;  // nullopt: an omitted optional input
  std::vector<ValueRange> values;                      // per input
  int line = 0;                                        // the row's line in the spec file
};

}  // namespace tileops::manifest
