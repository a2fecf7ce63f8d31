#include "gpu_support.hpp"

#include <tileops/backend.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace tileops::cuda_test {
namespace {

using GetProc = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

GetProc proc_lookup(std::string& why) {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    why = std::string("no CUDA driver: ") + (e ? e : "libcuda.so.1");
    return nullptr;
  }
  auto get = reinterpret_cast<GetProc>(dlsym(lib, "cuGetProcAddress_v2"));
  if (!get) why = "the CUDA driver has no cuGetProcAddress_v2";
  return get;
}

template <class F>
void resolve(GetProc get, const char* name, F& fn) {
  void* p = nullptr;
  CUdriverProcAddressQueryResult found{};
  if (get(name, &p, CUDA_VERSION, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &found) == CUDA_SUCCESS) fn = reinterpret_cast<F>(p);
}

struct Availability {
  bool ok = false;
  int count = 0;
};

const Availability& availability() {
  static const Availability a = [] {
    Availability out;
    std::string why;
    if (GetProc get = proc_lookup(why)) {
      decltype(&::cuInit) init = nullptr;
      decltype(&::cuDeviceGetCount) count = nullptr;
      resolve(get, "cuInit", init);
      resolve(get, "cuDeviceGetCount", count);
      if (!init || !count) {
        why = "the CUDA driver lacks cuInit or cuDeviceGetCount";
      } else if (CUresult r = init(0); r != CUDA_SUCCESS) {
        why = "cuInit failed with CUresult " + std::to_string(int(r));
      } else if (count(&out.count) != CUDA_SUCCESS || out.count == 0) {
        why = "the driver reports no CUDA device";
      } else {
        out.ok = true;
      }
    }
    if (!out.ok) std::printf("tileops CUDA GPU tests SKIPPED: %s\n", why.c_str());
    return out;
  }();
  return a;
}

// ---- 16-bit floats on the host ---------------------------------------------------------

uint16_t to_bf16(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
float from_bf16(uint16_t b) { return std::bit_cast<float>(uint32_t(b) << 16); }

uint16_t to_f16(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return uint16_t(sign | 0x7e00u);
  if (abs >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // rounds to >= 65520: inf
  if (abs < 0x38800000u) {  // below 2^-14: subnormal
    const float scaled = std::bit_cast<float>(abs) * 0x1p24f;  // in units of 2^-24
    return uint16_t(sign | uint32_t(std::nearbyint(scaled)));
  }
  const uint32_t rounded = abs + 0xfffu + ((abs >> 13) & 1u);
  return uint16_t(sign | ((rounded - 0x38000000u) >> 13));
}
float from_f16(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (exp == 0) return std::bit_cast<float>(std::bit_cast<uint32_t>(float(mant) * 0x1p-24f) | sign);
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

void store(void* data, size_t i, DType d, double v) {
  if (d == dtypes::float32) static_cast<float*>(data)[i] = float(v);
  else if (d == dtypes::float16) static_cast<uint16_t*>(data)[i] = to_f16(float(v));
  else if (d == dtypes::bfloat16) static_cast<uint16_t*>(data)[i] = to_bf16(float(v));
  else if (d == dtypes::int32) static_cast<int32_t*>(data)[i] = int32_t(v);
  else if (d == dtypes::int64) static_cast<int64_t*>(data)[i] = int64_t(v);
  else FAIL("unsupported dtype " << d.name());
}

double load(const void* data, size_t i, DType d) {
  if (d == dtypes::float32) return static_cast<const float*>(data)[i];
  if (d == dtypes::float16) return from_f16(static_cast<const uint16_t*>(data)[i]);
  if (d == dtypes::bfloat16) return from_bf16(static_cast<const uint16_t*>(data)[i]);
  if (d == dtypes::int32) return static_cast<const int32_t*>(data)[i];
  if (d == dtypes::int64) return double(static_cast<const int64_t*>(data)[i]);
  FAIL("unsupported dtype " << d.name());
  return 0;
}

// The same values in a non-contiguous layout on `device`: stored with the last two dims
// swapped, then viewed transposed back.
Tensor non_contiguous_on(const Tensor& cpu, const Device& device) {
  const auto shape = cpu.shape();
  const size_t n = shape.size();
  if (n < 2 || shape[n - 1] < 2 || shape[n - 2] < 2) return cpu.to(device);
  std::vector<int64_t> swapped(shape.begin(), shape.end());
  std::swap(swapped[n - 1], swapped[n - 2]);
  const std::vector<double> v = values_of(cpu);
  const int64_t rows = shape[n - 2], cols = shape[n - 1], plane = rows * cols;
  std::vector<double> t(v.size());
  for (size_t b = 0; b < v.size(); b += size_t(plane))
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) t[b + size_t(j * rows + i)] = v[b + size_t(i * cols + j)];
  return tensor_of(swapped, cpu.dtype(), t).to(device).transpose(-1, -2);
}

// The same values on `device`, contiguous, one element into a buffer one element longer.
Tensor misaligned_on(const Tensor& cpu, const Device& device) {
  const int64_t n = cpu.numel();
  if (n == 0) return cpu.to(device);
  std::vector<double> v = values_of(cpu);
  v.insert(v.begin(), 0.0);
  const Tensor flat = tensor_of({n + 1}, cpu.dtype(), v).to(device);
  return flat.slice(0, 1, n + 1).reshape(cpu.shape());
}

Tensor on_device(const Tensor& cpu, const Device& device, InputLayout layout) {
  switch (layout) {
    case InputLayout::kNonContiguous: return non_contiguous_on(cpu, device);
    case InputLayout::kMisaligned: return misaligned_on(cpu, device);
    case InputLayout::kContiguous: break;
  }
  return cpu.to(device);
}

// ||out - ref|| / ||max(|ref|, floor)||, elementwise max; `floor` (one value an element
// of ref, or empty) is the least size an element's error is measured against.
void compare(const Tensor& out, const Tensor& ref, const std::string& what, const std::vector<double>& floor) {
  INFO(what);
  REQUIRE(out.dtype() == ref.dtype());
  REQUIRE(std::vector<int64_t>(out.shape().begin(), out.shape().end()) ==
          std::vector<int64_t>(ref.shape().begin(), ref.shape().end()));
  const std::vector<double> o = values_of(out), r = values_of(ref);
  if (ref.dtype().is_integral()) {
    for (size_t i = 0; i < o.size(); ++i)
      if (o[i] != r[i]) FAIL_CHECK("element " << i << " is " << o[i] << ", cpu_ref has " << r[i]);
    return;
  }
  double diff = 0, norm = 0;
  for (size_t i = 0; i < o.size(); ++i) {
    const bool o_finite = std::isfinite(o[i]), r_finite = std::isfinite(r[i]);
    if (!o_finite || !r_finite) {
      const bool same = (std::isnan(o[i]) && std::isnan(r[i])) || o[i] == r[i];
      if (!same) {
        FAIL_CHECK("element " << i << " is " << o[i] << ", cpu_ref has " << r[i]);
        return;
      }
      continue;
    }
    const double size = floor.empty() ? std::abs(r[i]) : std::max(std::abs(r[i]), floor[i]);
    diff += (o[i] - r[i]) * (o[i] - r[i]);
    norm += size * size;
  }
  const double rel = norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
  CHECK_MESSAGE(rel <= tolerance(ref.dtype()),
                "relative error " << rel << " above " << tolerance(ref.dtype()) << " for " << ref.dtype().name());
}

}  // namespace

bool gpu_available() { return availability().ok; }
int gpu_count() { return availability().count; }

const TestDriver& driver() {
  static const TestDriver d = [] {
    TestDriver t;
    std::string why;
    GetProc get = proc_lookup(why);
    if (!get) return t;
    resolve(get, "cuStreamBeginCapture", t.cuStreamBeginCapture);
    resolve(get, "cuStreamEndCapture", t.cuStreamEndCapture);
    // cuda.h maps cuGraphInstantiate to cuGraphInstantiateWithFlags, a different entry
    // point than the driver's own "cuGraphInstantiate" (which takes five arguments).
    resolve(get, "cuGraphInstantiateWithFlags", t.cuGraphInstantiate);
    resolve(get, "cuGraphLaunch", t.cuGraphLaunch);
    resolve(get, "cuGraphExecDestroy", t.cuGraphExecDestroy);
    resolve(get, "cuGraphDestroy", t.cuGraphDestroy);
    resolve(get, "cuGraphGetNodes", t.cuGraphGetNodes);
    resolve(get, "cuLaunchHostFunc", t.cuLaunchHostFunc);
    resolve(get, "cuStreamSynchronize", t.cuStreamSynchronize);
    resolve(get, "cuStreamQuery", t.cuStreamQuery);
    resolve(get, "cuCtxSynchronize", t.cuCtxSynchronize);
    return t;
  }();
  return d;
}

void check_cu(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) FAIL(what << " failed with CUresult " << int(r));
}

Tensor random_tensor(std::vector<int64_t> shape, DType dtype, std::mt19937& rng) {
  const int64_t n = numel(ShapeView(shape.data(), shape.size()));
  std::vector<double> v(static_cast<size_t>(n));
  if (dtype.is_floating()) {
    std::normal_distribution<double> normal(0.0, 1.0);
    for (auto& x : v) x = normal(rng);
  } else {
    std::uniform_int_distribution<int> uniform(-50, 50);
    for (auto& x : v) x = uniform(rng);
  }
  return tensor_of(std::move(shape), dtype, v);
}

Tensor tensor_of(std::vector<int64_t> shape, DType dtype, const std::vector<double>& values) {
  Tensor t = Tensor::empty(ShapeView(shape.data(), shape.size()), dtype, Device::cpu());
  for (size_t i = 0; i < values.size(); ++i) store(t.data(), i, dtype, values[i]);
  return t;
}

std::vector<double> values_of(const Tensor& t) {
  const Tensor host = t.to(Device::cpu()).contiguous();
  std::vector<double> out(size_t(host.numel()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = load(host.data(), i, host.dtype());
  return out;
}

Tensor clone(const Tensor& t) {
  Tensor c = Tensor::empty(t.shape(), t.dtype(), t.device());
  c.copy_from(t);
  return c;
}

void poison_pool(const Device& device, size_t bytes) {
  if (bytes == 0) return;
  const int64_t n = int64_t(bytes);
  Tensor host = Tensor::empty({n}, dtypes::uint8, Device::cpu());
  std::memset(host.data(), 0xff, bytes);
  Tensor poison = Tensor::empty({n}, dtypes::uint8, device);
  poison.copy_from(host);
}  // freed on the current stream: the next allocations there reuse it

void poison_blocks(const Device& device, const std::vector<size_t>& sizes) {
  std::vector<Tensor> blocks;
  for (size_t bytes : sizes) {
    if (bytes == 0) continue;
    Tensor host = Tensor::empty({int64_t(bytes)}, dtypes::uint8, Device::cpu());
    std::memset(host.data(), 0xff, bytes);
    blocks.push_back(Tensor::empty({int64_t(bytes)}, dtypes::uint8, device));
    blocks.back().copy_from(host);
  }
}  // freed on the current stream: allocations of these sizes there reuse them

double tolerance(DType dtype) {
  if (dtype == dtypes::float16) return 1e-3;
  if (dtype == dtypes::bfloat16) return 1e-2;
  return 1e-5;
}

namespace {

void run_and_compare(const std::string& op, const Params& params, const std::vector<Tensor>& inputs,
                     const std::string& what, const Device& device, InputLayout layout,
                     const std::vector<double>& floor) {
  std::ostringstream label;
  label << op << " " << what;
  INFO(label.str());
  std::vector<Tensor> ref_inputs, dev_inputs;
  size_t bytes = 0;
  for (const Tensor& t : inputs) {
    ref_inputs.push_back(t.defined() ? clone(t) : Tensor());
    dev_inputs.push_back(t.defined() ? on_device(t, device, layout) : Tensor());
    if (t.defined()) bytes += t.nbytes();
  }
  Op on_cuda(op, params, std::string(BUILTIN));
  Op on_cpu(op, params, std::string("cpu_ref"));
  const std::vector<Tensor> ref = on_cpu(ref_inputs);
  poison_pool(device, 2 * bytes + 4096);
  std::vector<size_t> out_bytes;
  for (const Tensor& t : ref) out_bytes.push_back(t.nbytes());
  poison_blocks(device, out_bytes);
  const std::vector<Tensor> out = on_cuda(dev_inputs);
  REQUIRE(out.size() == ref.size());
  const std::vector<double> no_floor;  // outputs past the first (the floor is the first's)
  for (size_t j = 0; j < out.size(); ++j) {
    CHECK(out[j].device() == device);
    compare(out[j], ref[j], label.str() + ", output " + std::to_string(j), j == 0 ? floor : no_floor);
  }
}

}  // namespace

void check_against_cpu_ref(const std::string& op, const Params& params, const std::vector<Tensor>& inputs,
                           const std::string& what, const Device& device, InputLayout layout) {
  run_and_compare(op, params, inputs, what, device, layout, {});
}

void check_sum_against_cpu_ref(const std::string& op, const Params& params, const Tensor& x, const std::string& what) {
  std::vector<double> squares = values_of(x);
  for (double& v : squares) v *= v;
  const Tensor sum_sq = Op("SumFwdOp", params, std::string("cpu_ref"))({tensor_of(
      std::vector<int64_t>(x.shape().begin(), x.shape().end()), dtypes::float32, squares)})[0];
  std::vector<double> floor = values_of(sum_sq);
  const double count = floor.empty() ? 1 : std::max(1.0, double(x.numel()) / double(floor.size()));
  for (double& f : floor) f = std::sqrt(f) / (op == "MeanFwdOp" ? count : 1);
  run_and_compare(op, params, {x}, what, Device("cuda", 0), InputLayout::kContiguous, floor);
}

}  // namespace tileops::cuda_test
