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

// Memory a tensor views, released when the last tensor viewing it goes: through the
// device runtime that allocated it (on the stream it was allocated on), or through
// the caller's deleter for wrapped memory.
class Storage {
 public:
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  const Device& device() const { return device_; }

 private:
  friend class Tensor;
  struct Key {  // lets Tensor, and only Tensor, use std::make_shared
    explicit Key() = default;
  };

 public:
  Storage(Key, void* data, size_t nbytes, Device device) : data_(data), nbytes_(nbytes), device_(device) {}

 private:
  void* data_;
  size_t nbytes_;
  Device device_;
  const void* allocator_ = nullptr;  // the device runtime that allocated data_
  void* stream_ = nullptr;           // the stream it was allocated on
  std::function<void(void*)> deleter_;
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
  // Empty `strides` means contiguous; strides are in elements and not negative, and
  // `data` is NULL only under a tensor without elements (ValueError otherwise).
  static Tensor from_blob(void* data, ShapeView shape, DType dtype,
                          Device device = Device::cpu(), ShapeView strides = {},
                          std::function<void(void*)> deleter = {});
  // Takes ownership of a DLPack tensor (calls its deleter when done). When it throws
  // (the same checks as from_blob's) it has taken nothing: `managed` is still the caller's.
  static Tensor from_dlpack(DLManagedTensor* managed);
  // A DLPack view that keeps this tensor's storage alive until its deleter runs.
  DLManagedTensor* to_dlpack() const;

  bool defined() const { return storage_ != nullptr; }
  const Device& device() const { return storage_->device(); }
  DType dtype() const { return dtype_; }
  ShapeView shape() const { return view(shape_); }
  ShapeView strides() const { return view(strides_); }
  int64_t size(int64_t dim) const;
  int64_t ndim() const { return int64_t(shape_.size()); }
  int64_t numel() const { return tileops::numel(shape()); }
  size_t nbytes() const { return size_t(numel()) * dtype_.itemsize(); }
  void* data() const { return static_cast<char*>(storage_->data()) + offset_bytes_; }
  template <class T>
  T* data_ptr() const { return static_cast<T*>(data()); }
  const std::shared_ptr<Storage>& storage() const { return storage_; }
  TensorDesc desc() const { return {device(), dtype_, shape()}; }

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
