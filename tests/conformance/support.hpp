#pragma once
// Inputs for a conformance case and the comparisons the suites share.
#include "cases.hpp"
#include "reference.hpp"

#include "tensor_values.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace conformance {

inline uint64_t seed_of(const std::string& id) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a: the same values in every run
  for (unsigned char ch : id) h = (h ^ ch) * 1099511628211ull;
  return h;
}

inline std::vector<int64_t> shape_of(const tileops::Tensor& t) { return {t.shape().begin(), t.shape().end()}; }

// Fresh host tensors for every input of `c` (undefined for omitted ones), the same values
// on every call: a call that writes an input in place cannot leak into the next one.
inline std::vector<tileops::Tensor> make_inputs(const OpCase& c) {
  std::mt19937_64 gen(seed_of(c.id));
  std::vector<tileops::Tensor> out;
  for (const auto& spec : c.inputs) {
    if (!spec.present) {
      out.emplace_back();
      continue;
    }
    tileops::Tensor t = tileops::Tensor::empty(tileops::ShapeView(spec.shape), spec.dtype);
    std::vector<double> v(size_t(t.numel()));
    if (spec.values.kind == Values::IntRange) {
      std::uniform_int_distribution<int64_t> u(int64_t(spec.values.low), int64_t(spec.values.high) - 1);
      for (auto& x : v) x = double(u(gen));
    } else {
      std::normal_distribution<double> n(0.0, spec.values.high);
      for (auto& x : v) x = n(gen);
    }
    tileops::tooling::fill_from_doubles(t, v);
    out.push_back(t);
  }
  return out;
}

// A float64 host tensor holding `values` in `shape`.
inline tileops::Tensor as_tensor(const Buffer& values, const std::vector<int64_t>& shape) {
  tileops::Tensor t = tileops::Tensor::empty(tileops::ShapeView(shape), tileops::dtypes::float64);
  tileops::tooling::fill_from_doubles(t, values);
  return t;
}

// cpu_ref's documented contract (plugins/cpu_ref/README.md): computed in double, rounded
// once when stored. Each element is then within one unit in the last place of the output
// dtype of the exact value (integers: equal). Returns the first element that is not, as
// text, or "" when all are.
inline std::string beyond_one_ulp(const tileops::Tensor& out, const Buffer& ref) {
  const auto got = tileops::tooling::to_doubles(out);
  if (got.size() != ref.size()) return "sizes differ";
  const tileops::DType t = out.dtype();
  double rel = 0, abs = 0;  // one ulp relative to the value; the subnormal step
  if (t == tileops::dtypes::float32) rel = 0x1p-23, abs = 0x1p-149;
  else if (t == tileops::dtypes::float16) rel = 0x1p-10, abs = 0x1p-24;
  else if (t == tileops::dtypes::bfloat16) rel = 0x1p-7, abs = 0x1p-133;
  for (size_t i = 0; i < got.size(); ++i)
    if (!(std::abs(got[i] - ref[i]) <= rel * std::abs(ref[i]) + abs))
      return "element " + std::to_string(i) + ": got " + std::to_string(got[i]) + ", exact " + std::to_string(ref[i]);
  return "";
}

// The bytes of two host tensors are the same (shape and dtype too).
inline bool bit_identical(const tileops::Tensor& a, const tileops::Tensor& b) {
  if (a.dtype() != b.dtype() || shape_of(a) != shape_of(b)) return false;
  tileops::Tensor ca = a.contiguous(), cb = b.contiguous();
  return a.nbytes() == 0 || std::memcmp(ca.data(), cb.data(), a.nbytes()) == 0;
}

}  // namespace conformance
