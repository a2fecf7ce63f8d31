#pragma once
// What the GPU tests share: whether a GPU is there (tests are skipped, visibly, when
// not), a few driver API calls of their own (graph capture, host functions), random host
// tensors, and running one op on CUDA and on cpu_ref to compare.
#include <tileops/errors.hpp>
#include <tileops/op.hpp>
#include <tileops/stream.hpp>
#include <tileops/tensor.hpp>

#include <doctest/doctest.h>

#include <cuda.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tileops::cuda_test {

// True when the driver loads and reports a device. The first call prints, when false,
// "tileops CUDA GPU tests SKIPPED: <reason>" (ctest marks the test skipped on it).
bool gpu_available();
int gpu_count();

// A test case that needs a GPU; skipped (and counted as skipped) without one.
#define TILEOPS_GPU_TEST_CASE(name) TEST_CASE(name * doctest::skip(!::tileops::cuda_test::gpu_available()))

// The driver entry points the tests use directly, opened like the plugin opens them.
struct TestDriver {
  decltype(&::cuStreamBeginCapture) cuStreamBeginCapture = nullptr;
  decltype(&::cuStreamEndCapture) cuStreamEndCapture = nullptr;
  decltype(&::cuGraphInstantiate) cuGraphInstantiate = nullptr;
  decltype(&::cuGraphLaunch) cuGraphLaunch = nullptr;
  decltype(&::cuGraphExecDestroy) cuGraphExecDestroy = nullptr;
  decltype(&::cuGraphDestroy) cuGraphDestroy = nullptr;
  decltype(&::cuGraphGetNodes) cuGraphGetNodes = nullptr;
  decltype(&::cuLaunchHostFunc) cuLaunchHostFunc = nullptr;
  decltype(&::cuStreamSynchronize) cuStreamSynchronize = nullptr;
  decltype(&::cuStreamQuery) cuStreamQuery = nullptr;
  decltype(&::cuCtxSynchronize) cuCtxSynchronize = nullptr;
};
const TestDriver& driver();
// Fails the test with the driver's error name when `r` is not CUDA_SUCCESS.
void check_cu(CUresult r, const char* what);

// A param from any value ParamValue holds, spelled out: Param's own constructors would
// take a bool or a double as an int.
template <class V>
Param param(std::string name, V value) {
  return Param(std::move(name), ParamValue(std::move(value)));
}

// ---- tensors ------------------------------------------------------------------------

// A CPU tensor of random values: normal(0, 1) for floating types, uniform in [-50, 50]
// for integers.
Tensor random_tensor(std::vector<int64_t> shape, DType dtype, std::mt19937& rng);
// A CPU tensor holding `values` converted to `dtype` (rounded to nearest even).
Tensor tensor_of(std::vector<int64_t> shape, DType dtype, const std::vector<double>& values);
// Every element as a double, in row-major order (copied to the CPU first).
std::vector<double> values_of(const Tensor& t);
// A copy of a CPU tensor (for inputs an op writes in place).
Tensor clone(const Tensor& t);

// Fills `bytes` of the device's stream-ordered pool with 0xFF (NaN for floating types,
// -1 for integers) and hands it back: outputs allocated next on the current stream come
// from it, so an element a kernel forgets to write cannot pass for a result.
void poison_pool(const Device& device, size_t bytes);
// The same for blocks of exactly these sizes, which the device runtime's caching
// allocator (plugins/cuda/src/block_cache.hpp) keeps apart and hands to the next
// allocations of their size on the current stream.
void poison_blocks(const Device& device, const std::vector<size_t>& sizes);

// ---- running ops ----------------------------------------------------------------------

// ||out - ref|| / ||ref|| tolerated per dtype (floating); integers compare exactly.
double tolerance(DType dtype);

// How the CUDA inputs of check_against_cpu_ref hold their values: fresh contiguous
// tensors; non-contiguous views (stored with the last two dims swapped and viewed
// transposed back: the host makes them contiguous); or contiguous views starting one
// element into a larger buffer, not 16-byte aligned, which send every kernel with vector
// loads to its fallback.
enum class InputLayout { kContiguous, kNonContiguous, kMisaligned };

// Runs `op` with `params` on CPU `inputs` (an undefined tensor is an omitted optional
// input): through the in-tree CUDA kernels on `device` (inputs copied there in `layout`,
// outputs poisoned first) and through cpu_ref; checks every output against cpu_ref.
// `what` names the case in failures.
void check_against_cpu_ref(const std::string& op, const Params& params, const std::vector<Tensor>& inputs,
                           const std::string& what, const Device& device = Device("cuda", 0),
                           InputLayout layout = InputLayout::kContiguous);
// check_against_cpu_ref for SumFwdOp or MeanFwdOp of floating x, each output's error
// measured against at least the root sum of squares of what it adds (over the count,
// for a mean): what a sum of random normals is about, and what its rounding scales
// with. The result itself can cancel to near 0 (SumFwdOp fp32 [5, 7, 9] over all axes
// once measured 3e-5 of its own size), where its size says nothing of the rounding.
void check_sum_against_cpu_ref(const std::string& op, const Params& params, const Tensor& x, const std::string& what);

}  // namespace tileops::cuda_test
