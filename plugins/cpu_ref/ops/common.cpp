#include "ops/common.hpp"

#include <algorithm>
#include <cstring>

namespace tileops::cpu_ref {

// ---- element types -------------------------------------------------------------------

std::optional<ScalarType> scalar_type(tileops_dtype d) {
  if (sdk::same_dtype(d, sdk::kFloat32)) return ScalarType::float32;
  if (sdk::same_dtype(d, sdk::kFloat16)) return ScalarType::float16;
  if (sdk::same_dtype(d, sdk::kBFloat16)) return ScalarType::bfloat16;
  if (sdk::same_dtype(d, sdk::kInt32)) return ScalarType::int32;
  if (sdk::same_dtype(d, sdk::kInt64)) return ScalarType::int64;
  return std::nullopt;
}

tileops_dtype to_dtype(ScalarType type) {
  switch (type) {
    case ScalarType::float32: return sdk::kFloat32;
    case ScalarType::float16: return sdk::kFloat16;
    case ScalarType::bfloat16: return sdk::kBFloat16;
    case ScalarType::int32: return sdk::kInt32;
    case ScalarType::int64: return sdk::kInt64;
  }
  return sdk::kFloat32;
}

std::string_view name(ScalarType type) {
  switch (type) {
    case ScalarType::float32: return "float32";
    case ScalarType::float16: return "float16";
    case ScalarType::bfloat16: return "bfloat16";
    case ScalarType::int32: return "int32";
    case ScalarType::int64: return "int64";
  }
  return "?";
}

std::string join_types(std::span<const ScalarType> types) {
  std::string out;
  for (size_t i = 0; i < types.size(); ++i) {
    if (i > 0) out += i + 1 == types.size() ? " or " : ", ";
    out += name(types[i]);
  }
  return out;
}

Shape shape_of(const tileops_tensor_spec& spec) {
  return Shape(spec.shape, spec.shape + spec.ndim);
}

Shape strides_of(const tileops_tensor& t) {
  const Shape shape = shape_of(t.spec);
  return t.strides ? Shape(t.strides, t.strides + shape.size()) : contiguous_strides(shape);
}

TensorExpect output(std::string name, ScalarType type, Shape shape) {
  return TensorExpect{std::move(name), true, to_dtype(type), std::move(shape), false};
}

// ---- the kernel ----------------------------------------------------------------------

namespace {

std::string describe(const tileops_dtype& dtype, std::span<const int64_t> shape) {
  return sdk::dtype_name(dtype) + " " + sdk::format_shape(shape);
}

// True when `t` is laid out row-major without gaps (a dim of size 1 may have any stride).
bool is_contiguous(const tileops_tensor& t) {
  const Shape shape = shape_of(t.spec), strides = strides_of(t);
  if (numel(shape) == 0) return true;
  int64_t expected = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] != 1 && strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

class CpuKernel final : public sdk::Kernel {
 public:
  CpuKernel(std::string op, std::string config, std::vector<TensorExpect> inputs,
            std::vector<TensorExpect> outputs, Body body)
      : op_(std::move(op)),
        config_(std::move(config)),
        inputs_(std::move(inputs)),
        outputs_(std::move(outputs)),
        body_(std::move(body)) {}

  void launch(const sdk::LaunchArgs& args) override {
    check_all("input", inputs_, args.inputs);
    check_all("output", outputs_, args.outputs);
    body_(Launch(args));
  }

  std::string config_json() const override { return config_; }

 private:
  // The host keeps its side of the contract: what was built is what is launched.
  void check_all(const char* role, const std::vector<TensorExpect>& expected,
                 std::span<const tileops_tensor* const> got) const {
    if (got.size() != expected.size())
      broken(std::string("launched with ") + std::to_string(got.size()) + " " + role +
             "s, built for " + std::to_string(expected.size()));
    for (size_t i = 0; i < expected.size(); ++i) check(expected[i], got[i]);
  }

  void check(const TensorExpect& e, const tileops_tensor* t) const {
    if (!e.present) {
      if (t != nullptr) broken(e.name + " was absent at build, present at launch");
      return;
    }
    if (t == nullptr) broken(e.name + " was present at build, absent at launch");
    const auto shape = sdk::shape_of(t->spec);
    if (!sdk::same_dtype(t->spec.dtype, e.dtype) ||
        !std::equal(shape.begin(), shape.end(), e.shape.begin(), e.shape.end()))
      broken(e.name + " was " + describe(e.dtype, e.shape) + " at build, " +
             describe(t->spec.dtype, shape) + " at launch");
    if (t->data == nullptr && sdk::numel(shape) > 0) broken(e.name + " has no data");
    if (!e.strided_ok && !is_contiguous(*t))
      broken(e.name + " is not contiguous (strides " +
             sdk::format_shape(strides_of(*t)) + ")");
  }

  [[noreturn]] void broken(const std::string& what) const {
    sdk::fail(TILEOPS_ERR_INTERNAL, "cpu_ref " + op_ + ": " + what);
  }

  std::string op_;
  std::string config_;
  std::vector<TensorExpect> inputs_;
  std::vector<TensorExpect> outputs_;
  Body body_;
};

}  // namespace

// ---- Call ----------------------------------------------------------------------------

Call::Call(const sdk::BuildArgs& args, std::initializer_list<const char*> input_names)
    : args_(args), op_(args.op), names_(input_names.begin(), input_names.end()),
      strided_ok_(names_.size(), false) {
  if (args.inputs.size() != names_.size())
    invalid("expects " + std::to_string(names_.size()) + " inputs, got " +
            std::to_string(args.inputs.size()));
  for (size_t i = 0; i < names_.size(); ++i) {
    const tileops_tensor_spec* spec = args.inputs[i];
    if (spec == nullptr) continue;
    const char* type = spec->device.type ? spec->device.type : "(null)";
    if (std::strcmp(type, "cpu") != 0)
      unsupported("needs " + names_[i] + " on device cpu, got " + type + ":" +
                  std::to_string(spec->device.index));
  }
}

size_t Call::index(std::string_view name) const {
  for (size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return i;
  sdk::fail(TILEOPS_ERR_INTERNAL, "cpu_ref " + op_ + ": no input named " + std::string(name));
}

const tileops_tensor_spec& Call::input(std::string_view name) const {
  const tileops_tensor_spec* spec = optional(name);
  if (spec == nullptr) invalid("needs input " + std::string(name) + ", got none");
  return *spec;
}

const tileops_tensor_spec* Call::optional(std::string_view name) const {
  return args_.inputs[index(name)];
}

ScalarType Call::dtype(std::string_view name, std::span<const ScalarType> allowed) const {
  const tileops_tensor_spec& spec = input(name);
  const auto type = scalar_type(spec.dtype);
  if (!type || std::find(allowed.begin(), allowed.end(), *type) == allowed.end())
    unsupported("needs " + std::string(name) + " of " + join_types(allowed) + ", got " +
                sdk::dtype_name(spec.dtype));
  return *type;
}

void Call::expect_dtype(std::string_view name, ScalarType type) const {
  const tileops_tensor_spec* spec = optional(name);
  if (spec && !sdk::same_dtype(spec->dtype, to_dtype(type)))
    invalid("needs " + std::string(name) + " of " + std::string(cpu_ref::name(type)) +
            ", got " + sdk::dtype_name(spec->dtype));
}

void Call::expect_shape(std::string_view name, std::span<const int64_t> shape) const {
  const tileops_tensor_spec* spec = optional(name);
  if (spec == nullptr) return;
  const auto got = sdk::shape_of(*spec);
  if (!std::equal(got.begin(), got.end(), shape.begin(), shape.end()))
    invalid("needs " + std::string(name) + " of shape " + sdk::format_shape(shape) + ", got " +
            sdk::format_shape(got));
}

void Call::allow_strided(std::string_view name) { strided_ok_[index(name)] = true; }

int64_t Call::axis(std::string_view param, int64_t dim, int64_t ndim) const {
  const int64_t n = std::max<int64_t>(ndim, 1);  // rank 0 takes -1 and 0, as in torch
  if (dim < -n || dim >= n)
    invalid(std::string(param) + " " + std::to_string(dim) + " is out of range for rank " +
            std::to_string(ndim) + " (expected [" + std::to_string(-n) + ", " +
            std::to_string(n - 1) + "])");
  if (ndim == 0) return 0;
  return dim < 0 ? dim + ndim : dim;
}

std::vector<int64_t> Call::int_list(std::string_view param) const {
  const tileops_param& p = params().at(param);
  if (p.kind == TILEOPS_PARAM_INT) return {p.u.i};
  const auto list = params().get_ints(param);
  return {list.begin(), list.end()};
}

std::vector<int64_t> Call::axes(std::string_view param, int64_t ndim) const {
  std::vector<int64_t> out;
  if (!params().is_none(param))
    for (int64_t dim : int_list(param)) out.push_back(axis(param, dim, ndim));
  if (ndim == 0) return {};  // a rank-0 tensor reduces over nothing but itself
  if (out.empty())           // None, or an empty list (torch reduces every axis)
    for (int64_t d = 0; d < ndim; ++d) out.push_back(d);
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end())
    invalid(std::string(param) + " " + sdk::format_shape(int_list(param)) + " repeats an axis");
  return out;
}

void Call::unsupported(const std::string& what) const {
  sdk::unsupported("cpu_ref " + op_ + " " + what);
}

void Call::invalid(const std::string& what) const { sdk::invalid("cpu_ref " + op_ + ": " + what); }

std::unique_ptr<sdk::Kernel> Call::kernel(ScalarType type, std::vector<TensorExpect> outputs,
                                          Body body) const {
  std::vector<TensorExpect> inputs;
  for (size_t i = 0; i < names_.size(); ++i) {
    const tileops_tensor_spec* spec = args_.inputs[i];
    TensorExpect e{names_[i], spec != nullptr, {}, {}, strided_ok_[i]};
    if (spec) {
      e.dtype = spec->dtype;
      e.shape = shape_of(*spec);
    }
    inputs.push_back(std::move(e));
  }
  std::string config = "{\"backend\":\"cpu_ref\",\"op\":\"" + op_ + "\",\"dtype\":\"" +
                       std::string(name(type)) + "\"}";
  return std::make_unique<CpuKernel>(op_, std::move(config), std::move(inputs),
                                     std::move(outputs), std::move(body));
}

}  // namespace tileops::cpu_ref
