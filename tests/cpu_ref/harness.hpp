#pragma once
// Test support for cpu_ref: host tensors holding any cpu_ref dtype, random data, params,
// running an op through its builder and kernel, and comparing against a reference.
#include "numeric.hpp"
#include "ops/builders.hpp"
#include "ops/common.hpp"

#include <doctest/doctest.h>

#include <cstddef>
#include <deque>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace cpu_ref_test {

using tileops::cpu_ref::bf16;
using tileops::cpu_ref::f16;
using tileops::cpu_ref::ScalarType;
using tileops::cpu_ref::Shape;

template <class T>
constexpr ScalarType type_of() {
  if constexpr (std::is_same_v<T, float>) return ScalarType::float32;
  if constexpr (std::is_same_v<T, f16>) return ScalarType::float16;
  if constexpr (std::is_same_v<T, bf16>) return ScalarType::bfloat16;
  if constexpr (std::is_same_v<T, int32_t>) return ScalarType::int32;
  if constexpr (std::is_same_v<T, int64_t>) return ScalarType::int64;
}

bool is_integer(ScalarType type);
size_t itemsize(ScalarType type);
int64_t numel(const Shape& shape);

// A contiguous host tensor (or a strided view into its own storage). Elements read and
// written as doubles are rounded to the dtype; integers also have exact accessors. A new
// tensor is poisoned: NaN for floating dtypes, 0x5A5A... for integers.
class HostTensor {
 public:
  HostTensor(ScalarType type, Shape shape);
  HostTensor(ScalarType type, Shape shape, const std::vector<double>& values);

  ScalarType type() const { return type_; }
  const Shape& shape() const { return shape_; }
  int64_t numel() const { return cpu_ref_test::numel(shape_); }
  // Storage offset of element i (row-major index) under the tensor's strides.
  int64_t offset(int64_t i) const;

  double get(int64_t i) const;
  void set(int64_t i, double v);
  int64_t get_int(int64_t i) const;
  void set_int(int64_t i, int64_t v);
  std::vector<double> values() const;
  void poison();

  // Makes the tensor a strided view: storage grows to `storage_shape`, and the tensor's
  // element index maps through `strides` (values are kept).
  void restride(const Shape& storage_shape, const Shape& strides);

  void* data() { return storage_.data(); }
  const void* data() const { return storage_.data(); }
  tileops_tensor_spec spec(const char* device = "cpu") const;
  tileops_tensor tensor() const;

 private:
  ScalarType type_;
  Shape shape_;
  Shape strides_;
  bool contiguous_ = true;
  std::vector<std::byte> storage_;
};

// ---- data -------------------------------------------------------------------------

std::mt19937_64& rng();
std::vector<double> randn(int64_t n, double scale = 1.0);
std::vector<double> uniform(int64_t n, double low, double high);
std::vector<double> randint(int64_t n, int64_t low, int64_t high);  // [low, high)

// A random tensor: N(0, 1) * scale for floating dtypes, [-50, 50) for integers.
HostTensor random_tensor(ScalarType type, const Shape& shape, double scale = 1.0);

// ---- params -------------------------------------------------------------------------

// Named params, as the host passes them. Copyable: list() points into this object.
class Params {
 public:
  Params& i(const char* name, int64_t v);
  Params& f(const char* name, double v);
  Params& b(const char* name, bool v);
  Params& s(const char* name, std::string v);
  Params& ints(const char* name, std::vector<int64_t> v);
  Params& none(const char* name);
  const std::vector<tileops_param>& list() const;

 private:
  struct Entry {
    std::string name;
    tileops_param value{};
    std::string text;
    std::vector<int64_t> ints;
  };
  Entry& add(const char* name, int32_t kind);
  std::vector<Entry> entries_;
  mutable std::vector<tileops_param> params_;
};

// ---- running ops ----------------------------------------------------------------------

using Inputs = std::vector<const HostTensor*>;  // nullptr: an absent optional input
using Outputs = std::vector<HostTensor*>;

// The ABI's views of host tensors: specs to build with, tensors to launch with (nullptr
// where an input is absent). The pointers stay valid while the object lives.
struct SpecViews {
  std::vector<tileops_tensor_spec> specs;
  std::vector<const tileops_tensor_spec*> ptrs;
  explicit SpecViews(const Inputs& inputs);
};
struct TensorViews {
  std::vector<tileops_tensor> tensors;
  std::vector<const tileops_tensor*> ptrs;
  explicit TensorViews(std::span<const HostTensor* const> from);
};

std::unique_ptr<tileops::sdk::Kernel> build(const char* op, const Inputs& inputs,
                                            const Params& params = {});
void launch(tileops::sdk::Kernel& kernel, const Inputs& inputs, const Outputs& outputs);
void run(const char* op, const Inputs& inputs, const Params& params, const Outputs& outputs);

// The failure (status and message) `f` throws; fails the test when it throws nothing.
template <class F>
tileops::sdk::Failure failure_of(F&& f) {
  try {
    f();
  } catch (const tileops::sdk::Failure& failure) {
    return failure;
  }
  FAIL("expected a tileops::sdk::Failure");
  return {TILEOPS_OK, ""};
}

// ---- comparing ----------------------------------------------------------------------

// ||out - ref|| / ||ref|| (the absolute norm when ref is all zeros). A NaN in out where
// ref has none (or the reverse) gives +inf: NaN never passes.
double rel_error(const std::vector<double>& out, const std::vector<double>& ref);
// The bound of rel_error per dtype: float32 1e-5, float16 1e-3, bfloat16 1e-2, ints 0.
double tolerance(ScalarType type);

#define CHECK_CLOSE(tensor, ref)                                                   \
  do {                                                                             \
    const double cpu_ref_err_ = ::cpu_ref_test::rel_error((tensor).values(), ref); \
    INFO("relative error " << cpu_ref_err_ << " (bound "                           \
                           << ::cpu_ref_test::tolerance((tensor).type()) << ")");  \
    CHECK(cpu_ref_err_ <= ::cpu_ref_test::tolerance((tensor).type()));             \
  } while (0)

// Rounds each value to `type` (what storing it in a tensor of that type does).
std::vector<double> rounded(ScalarType type, std::vector<double> values);

// Row-major multi-index helpers for the references.
Shape unravel(int64_t flat, const Shape& shape);
int64_t ravel(const Shape& index, const Shape& shape);

}  // namespace cpu_ref_test

#define CPU_REF_FLOAT_TYPES float, ::tileops::cpu_ref::f16, ::tileops::cpu_ref::bf16
