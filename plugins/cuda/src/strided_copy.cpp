#include "strided_copy.hpp"

#include "driver.hpp"
#include "jit.hpp"
#include "ops/common.hpp"
#include "ops/ops.hpp"

#include <array>
#include <atomic>
#include <vector>

namespace tileops::cuda {
namespace {

struct Dim {
  int64_t size, dst, src;
};

// Drops size-1 dims and merges neighbours that are one run on both sides.
std::vector<Dim> coalesce(std::span<const int64_t> shape, std::span<const int64_t> dst,
                          std::span<const int64_t> src) {
  std::vector<Dim> dims;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1) continue;
    const Dim d{shape[i], dst[i], src[i]};
    if (!dims.empty() && dims.back().dst == d.size * d.dst && dims.back().src == d.size * d.src) {
      dims.back() = {dims.back().size * d.size, d.dst, d.src};
    } else {
      dims.push_back(d);
    }
  }
  return dims;
}

ProgramSpec copy_program(size_t itemsize) {
  return {"copy", {instance("strided_copy", {std::to_string(itemsize)})}};
}

// The kernel per (device, itemsize), looked up without the JIT once loaded.
CUfunction copy_kernel(const DeviceInfo& device, size_t itemsize) {
  static std::array<std::atomic<CUfunction>, 64 * 9> kernels{};
  auto& slot = kernels[size_t(device.index) * 9 + itemsize];
  if (CUfunction f = slot.load(std::memory_order_acquire)) return f;
  CUfunction f = load_program(device, copy_program(itemsize)).functions[0];
  slot.store(f, std::memory_order_release);
  return f;
}

}  // namespace

bool is_contiguous(std::span<const int64_t> shape, std::span<const int64_t> strides) {
  int64_t expected = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1 && strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

void list_copy_programs(std::vector<ProgramSpec>& out) {
  for (size_t bytes : {1, 2, 4, 8}) out.push_back(copy_program(bytes));
}

void preload_copy_kernel(const DeviceInfo& device, size_t itemsize) { copy_kernel(device, itemsize); }

void copy_views(const DeviceInfo& device, void* dst, std::span<const int64_t> dst_strides, const void* src,
                std::span<const int64_t> src_strides, std::span<const int64_t> shape, size_t itemsize,
                void* stream) {
  if (numel(shape) == 0) return;
  const Driver& d = driver();
  const auto dims = coalesce(shape, dst_strides, src_strides);
  auto s = static_cast<CUstream>(stream);
  const int64_t n = numel(shape);
  if (dims.empty() || (dims.size() == 1 && dims[0].dst == 1 && dims[0].src == 1)) {
    check(d.cuMemcpyDtoDAsync(CUdeviceptr(dst), CUdeviceptr(src), size_t(n) * itemsize, s), "copying a tensor");
    return;
  }
  if (dims.size() == 2 && dims[1].dst == 1 && dims[1].src == 1 && dims[0].dst >= dims[1].size &&
      dims[0].src >= dims[1].size && dims[0].dst * int64_t(itemsize) < (int64_t(1) << 31) &&
      dims[0].src * int64_t(itemsize) < (int64_t(1) << 31)) {
    CUDA_MEMCPY2D copy{};
    copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.srcDevice = CUdeviceptr(src);
    copy.srcPitch = size_t(dims[0].src) * itemsize;
    copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.dstDevice = CUdeviceptr(dst);
    copy.dstPitch = size_t(dims[0].dst) * itemsize;
    copy.WidthInBytes = size_t(dims[1].size) * itemsize;
    copy.Height = size_t(dims[0].size);
    check(d.cuMemcpy2DAsync(&copy, s), "copying a strided tensor");
    return;
  }
  if (dims.size() > TILEOPS_CUDA_MAX_DIMS)
    sdk::unsupported("a strided copy with " + std::to_string(dims.size()) + " dims that do not merge (at most " +
                     std::to_string(TILEOPS_CUDA_MAX_DIMS) + ")");
  if (itemsize != 1 && itemsize != 2 && itemsize != 4 && itemsize != 8)
    sdk::unsupported("a strided copy of " + std::to_string(itemsize) + "-byte elements");
  tileops_cuda::CopyParams p{};
  p.src = src;
  p.dst = dst;
  p.n = n;
  p.ndim = int(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    p.shape[i] = dims[i].size;
    p.dst_stride[i] = dims[i].dst;
    p.src_stride[i] = dims[i].src;
  }
  LaunchShape shape_;
  shape_.grid[0] = grid_for(n, 256, device, 8);
  shape_.block[0] = 256;
  launch(copy_kernel(device, itemsize), shape_, stream, &p);
}

}  // namespace tileops::cuda
