#pragma once
// What every cpu_ref builder shares: the element types and dispatch over them, `Call`
// (a build's inputs by name, checked and described in error messages) and the kernel
// object every builder returns, which checks each launch against what it was built for.
#include "kernels/indexing.hpp"
#include "numeric.hpp"

#include <tileops/sdk/plugin.hpp>

#include <array>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tileops::cpu_ref {

// ---- element types -------------------------------------------------------------------

enum class ScalarType { float32, float16, bfloat16, int32, int64 };

// The dtype sets of the manifest's T indices.
inline constexpr std::array kFloating = {ScalarType::float32, ScalarType::float16,
                                         ScalarType::bfloat16};
inline constexpr std::array kFloatingOrInt = {ScalarType::float32, ScalarType::float16,
                                              ScalarType::bfloat16, ScalarType::int32,
                                              ScalarType::int64};

std::optional<ScalarType> scalar_type(tileops_dtype dtype);
tileops_dtype to_dtype(ScalarType type);
std::string_view name(ScalarType type);

template <class T>
struct Tag {
  using type = T;
};

// Calls f(Tag<T>{}) with the element type of `type`: float, f16, bf16 (visit_floating),
// and also int32_t, int64_t (visit_any).
template <class F>
decltype(auto) visit_floating(ScalarType type, F&& f) {
  switch (type) {
    case ScalarType::float32: return f(Tag<float>{});
    case ScalarType::float16: return f(Tag<f16>{});
    case ScalarType::bfloat16: return f(Tag<bf16>{});
    default: break;
  }
  sdk::fail(TILEOPS_ERR_INTERNAL, "cpu_ref: " + std::string(name(type)) + " is not floating");
}
template <class F>
decltype(auto) visit_any(ScalarType type, F&& f) {
  switch (type) {
    case ScalarType::int32: return f(Tag<int32_t>{});
    case ScalarType::int64: return f(Tag<int64_t>{});
    default: return visit_floating(type, std::forward<F>(f));
  }
}

// visit_floating or visit_any, chosen at compile time by an op's dtype set.
enum class Types { floating, any };
template <Types kTypes, class F>
decltype(auto) visit(ScalarType type, F&& f) {
  if constexpr (kTypes == Types::any)
    return visit_any(type, std::forward<F>(f));
  else
    return visit_floating(type, std::forward<F>(f));
}

Shape shape_of(const tileops_tensor_spec& spec);
// A launched tensor's strides (in elements; contiguous when the host passes none).
Shape strides_of(const tileops_tensor& tensor);

// ---- launch --------------------------------------------------------------------------

// One launch's tensors, in signature order, typed.
class Launch {
 public:
  explicit Launch(const sdk::LaunchArgs& args) : args_(args) {}
  const tileops_tensor* input(size_t i) const { return args_.inputs[i]; }
  const tileops_tensor& output(size_t i) const { return *args_.outputs[i]; }
  // nullptr for an absent optional input.
  template <class T>
  const T* in(size_t i) const {
    return input(i) ? static_cast<const T*>(input(i)->data) : nullptr;
  }
  template <class T>
  T* out(size_t i) const {
    return static_cast<T*>(output(i).data);
  }

 private:
  const sdk::LaunchArgs& args_;
};

using Body = std::function<void(const Launch&)>;

// What a kernel expects of one tensor at every launch.
struct TensorExpect {
  std::string name;
  bool present = true;
  tileops_dtype dtype{};
  Shape shape;
  bool strided_ok = false;  // a mutated input, or its alias, arrives as the caller has it
};

// An output of the kernel: its manifest name, dtype and shape.
TensorExpect output(std::string name, ScalarType type, Shape shape);

// ---- build ---------------------------------------------------------------------------

// A build of one op: its inputs under their manifest names, in signature order.
// Construction checks the input count and that every present input is a cpu tensor.
class Call {
 public:
  Call(const sdk::BuildArgs& args, std::initializer_list<const char*> input_names);

  const std::string& op() const { return op_; }
  const sdk::ParamList& params() const { return args_.params; }

  // A required input (invalid when absent), or nullptr for an absent optional one.
  const tileops_tensor_spec& input(std::string_view name) const;
  const tileops_tensor_spec* optional(std::string_view name) const;
  Shape shape(std::string_view name) const { return shape_of(input(name)); }

  // The element type of input `name` if it is one of `allowed`; unsupported otherwise.
  ScalarType dtype(std::string_view name, std::span<const ScalarType> allowed) const;
  // Input `name`, when present, has element type `type` (invalid otherwise).
  void expect_dtype(std::string_view name, ScalarType type) const;
  // Input `name`, when present, has shape `shape` (invalid otherwise).
  void expect_shape(std::string_view name, std::span<const int64_t> shape) const;
  // Input `name` may arrive strided (a mutated input).
  void allow_strided(std::string_view name);

  // Axis `dim` of a tensor of rank `ndim`, normalised into [0, ndim) (rank 0: 0).
  int64_t axis(std::string_view param, int64_t dim, int64_t ndim) const;
  // The axes of param `param` (an int list, an int, or None for all), normalised,
  // distinct and sorted. An empty list means every axis, as in torch.
  std::vector<int64_t> axes(std::string_view param, int64_t ndim) const;
  // A list-of-int param that also accepts a single int (torch's int-or-sequence).
  std::vector<int64_t> int_list(std::string_view param) const;

  [[noreturn]] void unsupported(const std::string& what) const;
  [[noreturn]] void invalid(const std::string& what) const;

  // The kernel: checks each launch against the inputs seen here and `outputs`, then
  // runs `body`.
  std::unique_ptr<sdk::Kernel> kernel(ScalarType type, std::vector<TensorExpect> outputs,
                                      Body body) const;

 private:
  size_t index(std::string_view name) const;

  const sdk::BuildArgs& args_;
  std::string op_;
  std::vector<std::string> names_;
  std::vector<bool> strided_ok_;
};

// "float32, float16 or bfloat16".
std::string join_types(std::span<const ScalarType> types);

}  // namespace tileops::cpu_ref
