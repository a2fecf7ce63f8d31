// Zero-copy exchange with DLPack (PyTorch, JAX, CuPy, ...).
#include "tensor/shape_checks.hpp"

#include <tileops/errors.hpp>
#include <tileops/tensor.hpp>

#include <dlpack/dlpack.h>

#include <memory>
#include <vector>

namespace tileops {
namespace {

struct ExportContext {
  Tensor keep_alive;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
};

DLDevice to_dl_device(const Device& device) {
  int32_t id = device.index() < 0 ? 0 : device.index();
  if (device.is_cpu()) return {kDLCPU, id};
  if (device.type() == "cuda") return {kDLCUDA, id};
  throw ValueError("device type '" + std::string(device.type()) +
                   "' has no DLPack device code; only cpu and cuda tensors can be exported");
}

Device from_dl_device(const DLDevice& d) {
  switch (d.device_type) {
    case kDLCPU:
    case kDLCUDAHost: return Device::cpu();
    case kDLCUDA: return Device("cuda", d.device_id);
    default:
      throw ValueError("DLPack device type " + std::to_string(int(d.device_type)) +
                       " is not supported; cpu, cuda and cuda-host memory are");
  }
}

}  // namespace

DLManagedTensor* Tensor::to_dlpack() const {
  if (!defined()) throw ValueError("Tensor::to_dlpack: the tensor is undefined");
  const DLDevice device_code = to_dl_device(device());  // may throw: before allocating
  auto ctx = std::make_unique<ExportContext>(
      ExportContext{*this, {shape_.begin(), shape_.end()}, {strides_.begin(), strides_.end()}});
  auto managed = std::make_unique<DLManagedTensor>();
  managed->dl_tensor.data = data();
  managed->dl_tensor.device = device_code;
  managed->dl_tensor.ndim = int32_t(shape_.size());
  managed->dl_tensor.dtype = {dtype_.code, dtype_.bits, dtype_.lanes};
  managed->dl_tensor.shape = ctx->shape.data();
  managed->dl_tensor.strides = ctx->strides.data();
  managed->dl_tensor.byte_offset = 0;
  managed->manager_ctx = ctx.release();
  managed->deleter = [](DLManagedTensor* self) {
    delete static_cast<ExportContext*>(self->manager_ctx);
    delete self;
  };
  return managed.release();
}

Tensor Tensor::from_dlpack(DLManagedTensor* managed) {
  if (!managed) throw ValueError("Tensor::from_dlpack: null tensor");
  const DLTensor& t = managed->dl_tensor;
  if (t.ndim < 0 || (t.ndim > 0 && !t.shape))
    throw ValueError("Tensor::from_dlpack: ndim " + std::to_string(t.ndim) + (t.ndim < 0 ? "" : " without a shape"));
  Device device = from_dl_device(t.device);
  ShapeView shape(t.shape, size_t(t.ndim));
  DType dtype{t.dtype.code, t.dtype.bits, t.dtype.lanes};
  ShapeView strides = t.strides ? ShapeView(t.strides, size_t(t.ndim)) : ShapeView();
  // A null base with an offset is no address (nor defined arithmetic): refused below as NULL.
  void* data = t.data ? static_cast<char*>(t.data) + t.byte_offset : nullptr;
  detail::wrapped_bytes("Tensor::from_dlpack", data, shape, dtype, strides);
  return from_blob(data, shape, dtype, device, strides, [managed](void*) {
    if (managed->deleter) managed->deleter(managed);
  });
}

}  // namespace tileops
