#include "tensor_values.hpp"

#include <tileops/errors.hpp>
#include <tileops/sdk/half.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace tileops::tooling {
namespace {

double read(const void* data, DType dtype, int64_t i) {
  if (dtype == dtypes::float32) return static_cast<const float*>(data)[i];
  if (dtype == dtypes::float64) return static_cast<const double*>(data)[i];
  if (dtype == dtypes::float16) return sdk::f16_bits_to_float(static_cast<const uint16_t*>(data)[i]);
  if (dtype == dtypes::bfloat16) return sdk::bf16_bits_to_float(static_cast<const uint16_t*>(data)[i]);
  if (dtype == dtypes::int32) return static_cast<const int32_t*>(data)[i];
  if (dtype == dtypes::int64) return double(static_cast<const int64_t*>(data)[i]);
  if (dtype == dtypes::int8) return static_cast<const int8_t*>(data)[i];
  if (dtype == dtypes::uint8 || dtype == dtypes::bool_) return static_cast<const uint8_t*>(data)[i];
  throw ValueError("reading " + std::string(dtype.name()) + " values on the host is not supported");
}

void write(void* data, DType dtype, int64_t i, double v) {
  if (dtype == dtypes::float32) static_cast<float*>(data)[i] = float(v);
  else if (dtype == dtypes::float64) static_cast<double*>(data)[i] = v;
  else if (dtype == dtypes::float16) static_cast<uint16_t*>(data)[i] = sdk::float_to_f16_bits(float(v));
  else if (dtype == dtypes::bfloat16) static_cast<uint16_t*>(data)[i] = sdk::float_to_bf16_bits(float(v));
  else if (dtype == dtypes::int32) static_cast<int32_t*>(data)[i] = int32_t(v);
  else if (dtype == dtypes::int64) static_cast<int64_t*>(data)[i] = int64_t(v);
  else if (dtype == dtypes::int8) static_cast<int8_t*>(data)[i] = int8_t(v);
  else if (dtype == dtypes::uint8 || dtype == dtypes::bool_) static_cast<uint8_t*>(data)[i] = uint8_t(v);
  else throw ValueError("writing " + std::string(dtype.name()) + " values on the host is not supported");
}

}  // namespace

std::vector<double> to_doubles(const Tensor& t) {
  Tensor host = t.to(Device::cpu()).contiguous();
  std::vector<double> out(size_t(host.numel()));
  for (int64_t i = 0; i < host.numel(); ++i) out[size_t(i)] = read(host.data(), host.dtype(), i);
  return out;
}

void fill_from_doubles(Tensor& t, const std::vector<double>& values) {
  if (!t.device().is_cpu() || !t.is_contiguous())
    throw ValueError("fill_from_doubles needs a contiguous host tensor");
  if (int64_t(values.size()) != t.numel())
    throw ValueError("fill_from_doubles: " + std::to_string(values.size()) + " values for " +
                     std::to_string(t.numel()) + " elements");
  for (int64_t i = 0; i < t.numel(); ++i) write(t.data(), t.dtype(), i, values[size_t(i)]);
}

double relative_error(const Tensor& out, const Tensor& ref) {
  auto o = to_doubles(out);
  auto r = to_doubles(ref);
  if (o.size() != r.size()) return std::numeric_limits<double>::infinity();
  double diff = 0, norm = 0;
  for (size_t i = 0; i < o.size(); ++i) {
    if (std::isnan(o[i]) != std::isnan(r[i])) return std::numeric_limits<double>::infinity();
    if (std::isnan(o[i])) continue;  // NaN where the reference has NaN too
    if (std::isinf(o[i]) || std::isinf(r[i])) {
      if (o[i] != r[i]) return std::numeric_limits<double>::infinity();
      continue;
    }
    diff += (o[i] - r[i]) * (o[i] - r[i]);
    norm += r[i] * r[i];
  }
  if (norm == 0) return diff == 0 ? 0 : std::numeric_limits<double>::infinity();
  return std::sqrt(diff / norm);
}

double tolerance(DType dtype) {
  if (dtype == dtypes::float16) return 1e-3;
  if (dtype == dtypes::bfloat16) return 1e-2;
  if (dtype.is_floating()) return 1e-5;
  return 0;
}

Summary summarize(const Tensor& t) {
  Summary s;
  auto v = to_doubles(t);
  s.numel = int64_t(v.size());
  bool first = true;
  double sum = 0;
  for (double x : v) {
    if (std::isnan(x)) {
      ++s.nan;
      continue;
    }
    s.min = first ? x : std::min(s.min, x);
    s.max = first ? x : std::max(s.max, x);
    first = false;
    sum += x;
  }
  if (s.numel > s.nan) s.mean = sum / double(s.numel - s.nan);
  return s;
}

std::string describe(const Tensor& t) {
  Summary s = summarize(t);
  char buf[160];
  std::snprintf(buf, sizeof buf, " on %s mean=%.4g min=%.4g max=%.4g", t.device().str().c_str(),
                s.mean, s.min, s.max);
  std::string out = std::string(t.dtype().name()) + format_shape(t.shape()) + buf;
  if (s.nan) out += " nan=" + std::to_string(s.nan);
  return out;
}

}  // namespace tileops::tooling
