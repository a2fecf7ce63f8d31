#pragma once
// tileops::Tensor: device, dtype, shape, strides and shared storage.
//
// Memory comes from the device runtime of the tensor's device type (CPU's is built
// in; plugins register others) on the calling thread's current stream.
#include <tileops/device.hpp>
#include <tileops/dtype.hpp>
#include <tileops/shape.hpp>

#include <functional>
#include <memory>

struct DLManagedTensor;

namespace tileops {

// Memory a tensor views. Freed through its deleter when the last tensor goes.
struct Storage {
  void* data = nullptr;
  size_t nbytes = 0;
  Device device;
  std::function<void(void*)> deleter;

  Storage(void* d, size_t n, Device dev, std::function<void(void*)> del)
      : data(d), nbytes(n), device(dev), deleter(std::move(del)) {}
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  ~Storage() {
    if (deleter) deleter(data);
  }
};

class Tensor {
 public:
  // An undefined tensor: what an omitted optional input is.
  Tensor() = default;

  // Uninitialised memory on `device`, allocated on its current stream.
  static Tensor empty(ShapeView shape, DType dtype, Device device = Device::cpu());
  static Tensor empty(std::initializer_list<int64_t> shape, DType dtype,
                      Device device = Device::cpu()) {
    return empty(ShapeView(shape.begin(), shape.size()), dtype, device);
  }
  // Wraps caller memory; `deleter` (optional) runs when the last view goes.
  // Empty `strides` means contiguous.
  static Tensor from_blob(void* data, ShapeView shape, DType dtype,
                          Device device = Device::cpu(), ShapeView strides = {},
                          std::function<void(void*)> deleter = {});
  // Takes ownership of a DLPack tensor (calls its deleter when done).
  static Tensor from_dlpack(DLManagedTensor* managed);
  // A DLPack view that keeps this tensor's storage alive until its deleter runs.
  DLManagedTensor* to_dlpack() const;

  bool defined() const { return storage_ != nullptr; }
  const Device& device() const { return storage_->device; }
  DType dtype() const { return dtype_; }
  ShapeView shape() const { return shape_; }
  ShapeView strides() const { return strides_; }
  int64_t size(int64_t dim) const;
  int64_t ndim() const { return int64_t(shape_.size()); }
  int64_t numel() const { return tileops::numel(shape_); }
  size_t nbytes() const { return size_t(numel()) * dtype_.itemsize(); }
  void* data() const { return static_cast<char*>(storage_->data) + offset_bytes_; }
  template <class T>
  T* data_ptr() const { return static_cast<T*>(data()); }
  const std::shared_ptr<Storage>& storage() const { return storage_; }
  TensorDesc desc() const { return {device(), dtype_, shape_}; }

  bool is_contiguous() const;
  // This tensor if contiguous, else a contiguous copy on the same device.
  Tensor contiguous() const;
  // A copy on `device` (this tensor when it already lives there).
  Tensor to(const Device& device) const;
  // Copies `src` (same shape and dtype, any device) into this tensor.
  void copy_from(const Tensor& src);

  // Views sharing storage.
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor slice(int64_t dim, int64_t start, int64_t end) const;
  Tensor reshape(ShapeView shape) const;  // contiguous tensors only

 private:
  std::shared_ptr<Storage> storage_;
  DType dtype_;
  Dims shape_;
  Dims strides_;
  size_t offset_bytes_ = 0;
};

// Contiguous strides (in elements) for `shape`.
Dims contiguous_strides(ShapeView shape);

}  // namespace tileops
