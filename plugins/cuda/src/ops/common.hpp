#pragma once
// What every op's kernel type shares: element types, the call a refusal or build sees,
// the kernel base (launch-time device and value-error checks), launch and alignment
// helpers.
#include "../../kernels/params.cuh"
#include "../devices.hpp"
#include "../jit.hpp"

#include <tileops/sdk/plugin.hpp>
#include <tileops/sdk/shape.hpp>

#include <cuda.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tileops::cuda {

// ---- element types -----------------------------------------------------------------------

enum class Elem { f32, f16, bf16, i32, i64 };
inline constexpr Elem kFloats[] = {Elem::f32, Elem::f16, Elem::bf16};
inline constexpr Elem kFloatsAndInts[] = {Elem::f32, Elem::f16, Elem::bf16, Elem::i32, Elem::i64};

std::optional<Elem> elem_of(tileops_dtype dtype);
const char* name_of(Elem e);       // "bfloat16"
const char* cuda_type(Elem e);     // "tileops_cuda::bf16": the kernels' template argument
size_t size_of(Elem e);
// Elements in one 16-byte access.
inline int max_vec(Elem e) { return int(16 / size_of(e)); }
// Bytes of the kernels' accumulator of e (Acc<T> in common.cuh: fp32 for floats, the
// integer types themselves).
inline size_t acc_bytes(Elem e) { return e == Elem::i64 ? 8 : 4; }

// ---- the call ----------------------------------------------------------------------------

// One call spec at a kernel interface: tensors in signature order, params by name, the
// device and its facts.
class Call {
 public:
  explicit Call(const tileops_call& call);

  std::string_view op() const { return op_; }
  const sdk::ParamList& params() const { return params_; }
  const tileops_device& device() const { return call_.device; }
  // From the device facts: compute capability (90) and multiprocessor count.
  int arch() const { return call_.facts ? call_.facts->arch : -1; }
  int sm_count() const;
  // The shared memory one CTA may opt into (0 when the facts do not say).
  int64_t smem_budget() const { return call_.facts ? int64_t(call_.facts->smem_budget) : 0; }

  // nullptr for an absent optional input.
  const tileops_tensor_spec* tensor(size_t i) const;
  std::vector<int64_t> shape(size_t i) const;
  // The element type of tensor `i` (named `name` in messages) if it is one of
  // `allowed`; refuses the call otherwise.
  Elem dtype(size_t i, const char* name, std::span<const Elem> allowed) const;

  // Refuses the call: "<op> on CUDA: <what>".
  [[noreturn]] void refuse(const std::string& what) const;
  // Refuses the call unless the device's compute capability is at least `min` (80:
  // 8.0, which every kernel here needs for bf16 and cp.async).
  void require_arch(int min) const;

 private:
  const tileops_call& call_;
  std::string op_;
  sdk::ParamList params_;
};

// ---- kernels -----------------------------------------------------------------------------

// A built kernel: compiled for one device, launched on the host's stream. Launches check
// the device's pending value errors first (value_errors.hpp) and make its context current.
class CudaKernel : public sdk::Kernel {
 public:
  CudaKernel(const DeviceInfo& device, std::string config) : device_(device), config_(std::move(config)) {}
  std::string config_json() const override { return config_; }

 protected:
  void prepare() const;
  const DeviceInfo& device_;

 private:
  std::string config_;
};

// A kernel type of the in-tree path: `identity` plans the call (refusing it by throwing
// sdk::Failure) and returns a string naming everything the build depends on; `programs`
// plans it and names the programs `build` loads for it; `build` plans again and compiles.
// Interface = op, devices = {"cuda"}.
struct KernelTypeDef {
  const char* op;
  const char* key;
  std::string (*identity)(const Call& call);
  std::vector<ProgramSpec> (*programs)(const Call& call);
  std::unique_ptr<sdk::Kernel> (*build)(const Call& call);
};
void register_kernel_type(sdk::Registrar& reg, const KernelTypeDef& def);

// A kernel's grid, block and cluster size (cluster > 1: CTAs along x per cluster), its
// dynamic shared memory, and whether it is the programmatic dependent of the kernel
// before it on the stream (it may start early and waits in pdl_wait(), common.cuh).
struct LaunchShape {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned cluster = 1;
  unsigned smem = 0;
  bool dependent = false;
  bool cooperative = false;  // all CTAs resident at once, or the launch fails
};
// Launches `f` with one parameter block on `stream` exactly as given (nullptr: the
// legacy default stream). Throws sdk::Failure (TILEOPS_ERR_DEVICE) when it fails.
void launch(CUfunction f, const LaunchShape& shape, void* stream, const void* params);
// launch(), answering the driver's result instead of throwing it.
CUresult try_launch(CUfunction f, const LaunchShape& shape, void* stream, const void* params);

// zero_words (kernels/zero_words.cuh), a program of its own: the kernel types that launch
// it load it beside their own programs.
ProgramSpec zero_words_program();
// Launches zero_words (`zero`, from zero_words_program()) over `count` words at `words`.
// The kernel launched next on `stream` is to be its programmatic dependent
// (LaunchShape::dependent) and pdl_wait() before it touches the words.
void zero_words(CUfunction zero, void* words, int64_t count, void* stream);

// How many CTAs of `block` threads of `f`, with `smem` bytes of dynamic shared memory, an
// SM holds at once (at least 1).
int occupancy(CUfunction f, int block, size_t smem = 0);
// How many clusters of `f` launched as `shape` the GPU holds at once (at least 1).
int resident_clusters(CUfunction f, const LaunchShape& shape);
// Lets `f` use all the shared memory one CTA may opt into (the dynamic part is sized
// per launch).
void allow_max_smem(CUfunction f, const DeviceInfo& device);
// CTAs for a grid-stride kernel: enough for `work` items of `per_cta` each, but at most
// `per_sm` per multiprocessor.
unsigned grid_for(int64_t work, int64_t per_cta, const DeviceInfo& device, int per_sm);
// Waves of resident CTAs a grid-stride kernel is given before its CTAs loop: short CTAs
// that the hardware hands out as SMs free up balance the load better than one wave of
// long ones, whose uneven finish leaves SMs idle at the end.
inline constexpr int kWaves = 16;

// ---- small helpers -----------------------------------------------------------------------

tileops_cuda::FastDiv make_fast_div(uint32_t divisor);
inline bool aligned(const void* p, size_t bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }
inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t pow2_ceil(int64_t v) {
  int64_t p = 1;
  while (p < v) p *= 2;
  return p;
}
inline int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }
using sdk::Axis;
using sdk::axis_view;
using sdk::numel;
// A tensor's shape at launch.
std::span<const int64_t> shape_of(const tileops_tensor& t);
// "name<arg, arg, ...>" with arguments joined by ", ".
std::string instance(const char* name, std::initializer_list<std::string> args);
// The normalised axis `dim` of a rank-`ndim` tensor (rank 0 accepts -1 and 0).
int64_t normalize_axis(const Call& call, const char* param, int64_t dim, int64_t ndim);

}  // namespace tileops::cuda
