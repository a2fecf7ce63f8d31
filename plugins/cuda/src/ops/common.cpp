#include "common.hpp"

#include "../value_errors.hpp"

namespace tileops::cuda {

std::optional<Elem> elem_of(tileops_dtype d) {
  if (d.lanes != 1) return std::nullopt;
  if (d.code == TILEOPS_DTYPE_FLOAT && d.bits == 32) return Elem::f32;
  if (d.code == TILEOPS_DTYPE_FLOAT && d.bits == 16) return Elem::f16;
  if (d.code == TILEOPS_DTYPE_BFLOAT && d.bits == 16) return Elem::bf16;
  if (d.code == TILEOPS_DTYPE_INT && d.bits == 32) return Elem::i32;
  if (d.code == TILEOPS_DTYPE_INT && d.bits == 64) return Elem::i64;
  return std::nullopt;
}

const char* name_of(Elem e) {
  switch (e) {
    case Elem::f32: return "float32";
    case Elem::f16: return "float16";
    case Elem::bf16: return "bfloat16";
    case Elem::i32: return "int32";
    case Elem::i64: return "int64";
  }
  return "?";
}

const char* cuda_type(Elem e) {
  switch (e) {
    case Elem::f32: return "float";
    case Elem::f16: return "tileops_cuda::f16";
    case Elem::bf16: return "tileops_cuda::bf16";
    case Elem::i32: return "int";
    case Elem::i64: return "long long";
  }
  return "?";
}

size_t size_of(Elem e) {
  switch (e) {
    case Elem::f16:
    case Elem::bf16: return 2;
    case Elem::f32:
    case Elem::i32: return 4;
    case Elem::i64: return 8;
  }
  return 1;
}

Call::Call(const tileops_call& call)
    : call_(call), op_(call.op ? call.op : ""), params_(call.params, call.n_params) {}

int Call::sm_count() const {
  if (call_.facts && call_.facts->sm_count > 0) return call_.facts->sm_count;
  return 1;
}

const tileops_tensor_spec* Call::tensor(size_t i) const { return i < call_.n_tensors ? call_.tensors[i] : nullptr; }

std::vector<int64_t> Call::shape(size_t i) const {
  const tileops_tensor_spec* t = tensor(i);
  if (!t) refuse("input " + std::to_string(i) + " is missing");
  return std::vector<int64_t>(t->shape, t->shape + t->ndim);
}

Elem Call::dtype(size_t i, const char* name, std::span<const Elem> allowed) const {
  const tileops_tensor_spec* t = tensor(i);
  if (!t) refuse(std::string(name) + " is missing");
  const auto e = elem_of(t->dtype);
  for (Elem a : allowed)
    if (e && *e == a) return a;
  std::string list;
  for (size_t k = 0; k < allowed.size(); ++k)
    list += std::string(k == 0 ? "" : k + 1 == allowed.size() ? " or " : ", ") + name_of(allowed[k]);
  refuse(std::string(name) + " is " + sdk::dtype_name(t->dtype) + "; the kernel takes " + list);
}

void Call::refuse(const std::string& what) const { sdk::unsupported(op_ + " on CUDA: " + what); }

void Call::require_arch(int min) const {
  if (arch() >= min) return;
  const std::string needed =
      "needs compute capability " + std::to_string(min / 10) + "." + std::to_string(min % 10) + " or newer";
  if (arch() < 0) refuse(needed + ", and the device facts give none");
  refuse(needed + ", the device has arch " + std::to_string(arch()));
}

void CudaKernel::prepare() const {
  raise_pending_value_error(device_.index);
  make_current(device_);
}

tileops_cuda::FastDiv make_fast_div(uint32_t d) {
  // ceil(2^(31 + ceil(log2 d)) / d), valid for numerators and divisors below 2^31.
  if (d <= 1) return {1, 0, 0};
  uint32_t log2 = 0;
  while ((uint64_t(1) << log2) < d) ++log2;
  const uint32_t p = 31 + log2;
  return {d, uint32_t(((uint64_t(1) << p) + d - 1) / d), p - 32};
}

std::span<const int64_t> shape_of(const tileops_tensor& t) { return {t.spec.shape, size_t(t.spec.ndim)}; }

std::string instance(const char* name, std::initializer_list<std::string> args) {
  std::string out = std::string("tileops_cuda::") + name + "<";
  bool first = true;
  for (const auto& a : args) {
    out += (first ? "" : ", ") + a;
    first = false;
  }
  return out + ">";
}

int64_t normalize_axis(const Call& call, const char* param, int64_t dim, int64_t ndim) {
  const int64_t n = ndim > 0 ? ndim : 1;
  if (dim < -n || dim >= n)
    call.refuse(std::string(param) + " = " + std::to_string(dim) + " is out of range for rank " + std::to_string(ndim));
  return dim < 0 ? dim + n : dim;
}

}  // namespace tileops::cuda
