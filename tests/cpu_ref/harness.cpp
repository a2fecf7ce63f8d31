#include "harness.hpp"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

namespace cpu_ref_test {

namespace sdk = tileops::sdk;
namespace cr = tileops::cpu_ref;

bool is_integer(ScalarType type) { return type == ScalarType::int32 || type == ScalarType::int64; }

size_t itemsize(ScalarType type) {
  switch (type) {
    case ScalarType::float32: return 4;
    case ScalarType::float16: return 2;
    case ScalarType::bfloat16: return 2;
    case ScalarType::int32: return 4;
    case ScalarType::int64: return 8;
  }
  return 0;
}

int64_t numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Shape unravel(int64_t flat, const Shape& shape) {
  Shape index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return index;
}

int64_t ravel(const Shape& index, const Shape& shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + index[d];
  return flat;
}

// ---- HostTensor -----------------------------------------------------------------------

HostTensor::HostTensor(ScalarType type, Shape shape)
    : type_(type), shape_(std::move(shape)), strides_(cr::contiguous_strides(shape_)) {
  storage_.resize(size_t(numel()) * itemsize(type_));
  poison();
}

HostTensor::HostTensor(ScalarType type, Shape shape, const std::vector<double>& values)
    : HostTensor(type, std::move(shape)) {
  REQUIRE(int64_t(values.size()) == numel());
  for (int64_t i = 0; i < numel(); ++i) set(i, values[size_t(i)]);
}

int64_t HostTensor::offset(int64_t i) const {
  if (contiguous_) return i;
  const Shape index = unravel(i, shape_);
  int64_t off = 0;
  for (size_t d = 0; d < index.size(); ++d) off += index[d] * strides_[d];
  return off;
}

double HostTensor::get(int64_t i) const {
  const std::byte* p = storage_.data() + size_t(offset(i)) * itemsize(type_);
  switch (type_) {
    case ScalarType::float32: { float v; std::memcpy(&v, p, 4); return v; }
    case ScalarType::float16: { cr::f16 v; std::memcpy(&v, p, 2); return cr::to_double(v); }
    case ScalarType::bfloat16: { cr::bf16 v; std::memcpy(&v, p, 2); return cr::to_double(v); }
    default: return double(get_int(i));
  }
}

void HostTensor::set(int64_t i, double v) {
  std::byte* p = storage_.data() + size_t(offset(i)) * itemsize(type_);
  switch (type_) {
    case ScalarType::float32: { const float x = cr::from_double<float>(v); std::memcpy(p, &x, 4); return; }
    case ScalarType::float16: { const cr::f16 x = cr::from_double<cr::f16>(v); std::memcpy(p, &x, 2); return; }
    case ScalarType::bfloat16: { const cr::bf16 x = cr::from_double<cr::bf16>(v); std::memcpy(p, &x, 2); return; }
    default: set_int(i, int64_t(v)); return;
  }
}

int64_t HostTensor::get_int(int64_t i) const {
  const std::byte* p = storage_.data() + size_t(offset(i)) * itemsize(type_);
  if (type_ == ScalarType::int32) { int32_t v; std::memcpy(&v, p, 4); return v; }
  if (type_ == ScalarType::int64) { int64_t v; std::memcpy(&v, p, 8); return v; }
  return int64_t(get(i));
}

void HostTensor::set_int(int64_t i, int64_t v) {
  std::byte* p = storage_.data() + size_t(offset(i)) * itemsize(type_);
  if (type_ == ScalarType::int32) { const int32_t x = int32_t(v); std::memcpy(p, &x, 4); return; }
  if (type_ == ScalarType::int64) { std::memcpy(p, &v, 8); return; }
  set(i, double(v));
}

std::vector<double> HostTensor::values() const {
  std::vector<double> out(static_cast<size_t>(numel()));
  for (int64_t i = 0; i < numel(); ++i) out[size_t(i)] = get(i);
  return out;
}

void HostTensor::poison() {
  if (storage_.empty()) return;
  if (is_integer(type_)) {
    std::memset(storage_.data(), 0x5A, storage_.size());
    return;
  }
  for (size_t i = 0; i < storage_.size() / itemsize(type_); ++i) {
    std::byte* p = storage_.data() + i * itemsize(type_);
    if (type_ == ScalarType::float32) {
      const float nan = std::numeric_limits<float>::quiet_NaN();
      std::memcpy(p, &nan, 4);
    } else {
      const uint16_t nan = type_ == ScalarType::float16 ? 0x7E00 : 0x7FC0;
      std::memcpy(p, &nan, 2);
    }
  }
}

void HostTensor::restride(const Shape& storage_shape, const Shape& strides) {
  const std::vector<double> vals = values();
  storage_.assign(size_t(cpu_ref_test::numel(storage_shape)) * itemsize(type_), std::byte{0});
  strides_ = strides;
  contiguous_ = strides_ == cr::contiguous_strides(shape_);
  for (int64_t i = 0; i < numel(); ++i) set(i, vals[size_t(i)]);
}

tileops_tensor_spec HostTensor::spec(const char* device) const {
  tileops_tensor_spec s{};
  s.struct_size = sizeof(s);
  s.device = {device, -1};
  s.dtype = cr::to_dtype(type_);
  s.ndim = int32_t(shape_.size());
  s.shape = shape_.data();
  return s;
}

tileops_tensor HostTensor::tensor() const {
  tileops_tensor t{};
  t.struct_size = sizeof(t);
  t.spec = spec();
  t.data = const_cast<std::byte*>(storage_.data());
  t.strides = strides_.data();
  return t;
}

// ---- data -----------------------------------------------------------------------------

std::mt19937_64& rng() {
  static std::mt19937_64 engine(20240601);
  return engine;
}

namespace {

// Reseeds rng() from each test case's name, so a test draws the same data however the
// run is filtered or ordered.
struct ReseedPerTestCase : doctest::IReporter {
  explicit ReseedPerTestCase(const doctest::ContextOptions&) {}
  void test_case_start(const doctest::TestCaseData& tc) override {
    rng().seed(std::hash<std::string>{}(std::string(tc.m_name)));
  }
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};
REGISTER_LISTENER("cpu_ref_reseed", 1, ReseedPerTestCase);

}  // namespace

std::vector<double> randn(int64_t n, double scale) {
  std::normal_distribution<double> dist(0.0, scale);
  std::vector<double> out(static_cast<size_t>(n));
  for (double& v : out) v = dist(rng());
  return out;
}

std::vector<double> uniform(int64_t n, double low, double high) {
  std::uniform_real_distribution<double> dist(low, high);
  std::vector<double> out(static_cast<size_t>(n));
  for (double& v : out) v = dist(rng());
  return out;
}

std::vector<double> randint(int64_t n, int64_t low, int64_t high) {
  std::uniform_int_distribution<int64_t> dist(low, high - 1);
  std::vector<double> out(static_cast<size_t>(n));
  for (double& v : out) v = double(dist(rng()));
  return out;
}

HostTensor random_tensor(ScalarType type, const Shape& shape, double scale) {
  const int64_t n = numel(shape);
  return HostTensor(type, shape, is_integer(type) ? randint(n, -50, 50) : randn(n, scale));
}

std::vector<double> rounded(ScalarType type, std::vector<double> values) {
  HostTensor t(type, {int64_t(values.size())}, values);
  return t.values();
}

// ---- params ---------------------------------------------------------------------------

Params::Entry& Params::add(const char* name, int32_t kind) {
  entries_.push_back(Entry{name, {}, {}, {}});
  entries_.back().value.kind = kind;
  return entries_.back();
}

Params& Params::i(const char* name, int64_t v) {
  add(name, TILEOPS_PARAM_INT).value.u.i = v;
  return *this;
}
Params& Params::f(const char* name, double v) {
  add(name, TILEOPS_PARAM_FLOAT).value.u.f = v;
  return *this;
}
Params& Params::b(const char* name, bool v) {
  add(name, TILEOPS_PARAM_BOOL).value.u.b = v ? 1 : 0;
  return *this;
}
Params& Params::s(const char* name, std::string v) {
  add(name, TILEOPS_PARAM_STRING).text = std::move(v);
  return *this;
}
Params& Params::ints(const char* name, std::vector<int64_t> v) {
  add(name, TILEOPS_PARAM_INT_LIST).ints = std::move(v);
  return *this;
}
Params& Params::none(const char* name) {
  add(name, TILEOPS_PARAM_NONE);
  return *this;
}

const std::vector<tileops_param>& Params::list() const {
  params_.clear();
  for (const Entry& e : entries_) {
    tileops_param p = e.value;
    p.name = e.name.c_str();
    if (p.kind == TILEOPS_PARAM_STRING) p.u.s = e.text.c_str();
    if (p.kind == TILEOPS_PARAM_INT_LIST) {
      p.u.ints.data = e.ints.data();
      p.u.ints.len = e.ints.size();
    }
    params_.push_back(p);
  }
  return params_;
}

// ---- running ops ----------------------------------------------------------------------

SpecViews::SpecViews(const Inputs& inputs) {
  specs.reserve(inputs.size());
  for (const HostTensor* t : inputs) {
    if (t) specs.push_back(t->spec());
    ptrs.push_back(t ? &specs.back() : nullptr);
  }
}

TensorViews::TensorViews(std::span<const HostTensor* const> from) {
  tensors.reserve(from.size());
  for (const HostTensor* t : from) {
    if (t) tensors.push_back(t->tensor());
    ptrs.push_back(t ? &tensors.back() : nullptr);
  }
}

std::unique_ptr<sdk::Kernel> build(const char* op, const Inputs& inputs, const Params& params) {
  const sdk::BuildFn fn = cr::find_builder(op);
  REQUIRE_MESSAGE(bool(fn), "no cpu_ref builder for " << op);
  const SpecViews specs(inputs);
  const auto& list = params.list();
  return fn(sdk::BuildArgs{op, specs.ptrs, sdk::ParamList(list.data(), list.size())});
}

void launch(sdk::Kernel& kernel, const Inputs& inputs, const Outputs& outputs) {
  const std::vector<const HostTensor*> outs(outputs.begin(), outputs.end());
  const TensorViews in(inputs), out(outs);
  kernel.launch({in.ptrs, out.ptrs, nullptr});
}

void run(const char* op, const Inputs& inputs, const Params& params, const Outputs& outputs) {
  auto kernel = build(op, inputs, params);
  REQUIRE(kernel != nullptr);
  launch(*kernel, inputs, outputs);
}

// ---- comparing ------------------------------------------------------------------------

double rel_error(const std::vector<double>& out, const std::vector<double>& ref) {
  if (out.size() != ref.size()) return std::numeric_limits<double>::infinity();
  long double diff = 0, norm = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    const bool out_nan = std::isnan(out[i]), ref_nan = std::isnan(ref[i]);
    if (out_nan || ref_nan) {
      if (out_nan != ref_nan) return std::numeric_limits<double>::infinity();
      continue;
    }
    if (std::isinf(ref[i]) || std::isinf(out[i])) {
      if (out[i] != ref[i]) return std::numeric_limits<double>::infinity();
      continue;
    }
    const long double d = (long double)out[i] - ref[i];
    diff += d * d;
    norm += (long double)ref[i] * ref[i];
  }
  return double(norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff));
}

double tolerance(ScalarType type) {
  switch (type) {
    case ScalarType::float32: return 1e-5;
    case ScalarType::float16: return 1e-3;
    case ScalarType::bfloat16: return 1e-2;
    default: return 0;
  }
}

}  // namespace cpu_ref_test
