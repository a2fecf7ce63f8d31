#pragma once
// Host-side reading and writing of tensor values, whatever their dtype: used by the
// CLI, the benchmarks and the tests to fill inputs and judge outputs.
#include <tileops/tensor.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tileops::tooling {

// The values of `t` (any device; copied to the host) as doubles, row-major.
std::vector<double> to_doubles(const Tensor& t);
// Writes `values` (row-major) into the host tensor `t`, rounding to its dtype.
void fill_from_doubles(Tensor& t, const std::vector<double>& values);

// ‖out − ref‖ / ‖ref‖ over all elements (inf when any output is NaN, or when ref is
// all zeros and out is not).
double relative_error(const Tensor& out, const Tensor& ref);
// The bound PERFORMANCE.md sets per dtype: fp32 1e-5, fp16 1e-3, bf16 1e-2, ints 0.
double tolerance(DType dtype);

struct Summary {
  int64_t numel = 0;
  int64_t nan = 0;
  double min = 0, max = 0, mean = 0;
};
Summary summarize(const Tensor& t);
// "float16[2048, 4096] mean=0.0012 min=-3.1 max=3.2"
std::string describe(const Tensor& t);

}  // namespace tileops::tooling
