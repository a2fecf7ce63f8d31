#include "device/device_runtime.hpp"
#include "tensor/shape_checks.hpp"

#include <tileops/errors.hpp>
#include <tileops/stream.hpp>
#include <tileops/tensor.hpp>

namespace tileops {

using detail::contiguous_bytes;
using detail::DeviceRuntime;

int64_t detail::contiguous_bytes(const char* what, ShapeView shape, DType dtype) {
  if (dtype.bits == 0 || dtype.bits % 8 != 0 || dtype.lanes == 0)
    throw ValueError(std::string(what) + ": element type " + std::string(dtype.name()) + " is " +
                     std::to_string(dtype.bits) + " bits x " + std::to_string(dtype.lanes) +
                     " lanes; an element must be a positive whole number of bytes");
  int64_t bytes = int64_t(dtype.itemsize());
  bool empty = false;
  for (int64_t d : shape) {
    if (d < 0) throw ValueError(std::string(what) + ": negative dimension in shape " + format_shape(shape));
    if (d == 0)
      empty = true;
    else if (__builtin_mul_overflow(bytes, d, &bytes))
      throw ValueError(std::string(what) + ": shape " + format_shape(shape) + " of " + std::string(dtype.name()) +
                       " is more than 2^63 bytes");
  }
  return empty ? 0 : bytes;
}

size_t detail::wrapped_bytes(const char* what, const void* data, ShapeView shape, DType dtype, ShapeView strides) {
  const int64_t contiguous = contiguous_bytes(what, shape, dtype);
  if (!strides.empty() && strides.size() != shape.size())
    throw ValueError(std::string(what) + ": " + std::to_string(strides.size()) + " strides for a shape of rank " +
                     std::to_string(shape.size()));
  int64_t extent = contiguous ? 1 : 0;  // one past the furthest element, in elements
  bool overflow = false;
  for (size_t i = 0; i < strides.size(); ++i) {
    if (strides[i] < 0)
      throw ValueError(std::string(what) + ": strides " + format_shape(strides) + " of shape " + format_shape(shape) +
                       " step backwards in dimension " + std::to_string(i) +
                       "; only non-negative strides are supported (make a contiguous copy first)");
    int64_t reach = 0;
    if (extent && !overflow)
      overflow = __builtin_mul_overflow(shape[i] - 1, strides[i], &reach) ||
                 __builtin_add_overflow(extent, reach, &extent);
  }
  int64_t extent_bytes = contiguous;
  if (!strides.empty() && (overflow || __builtin_mul_overflow(extent, int64_t(dtype.itemsize()), &extent_bytes)))
    throw ValueError(std::string(what) + ": strides " + format_shape(strides) + " of shape " + format_shape(shape) +
                     " of " + std::string(dtype.name()) + " reach past 2^63 bytes");
  const size_t nbytes = size_t(extent_bytes);
  if (!data && nbytes)
    throw ValueError(std::string(what) + ": data is NULL under shape " + format_shape(shape) + " of " +
                     std::string(dtype.name()) + " (" + std::to_string(nbytes) + " bytes)");
  return nbytes;
}

Storage::~Storage() {
  if (deleter_) {
    deleter_(data_);
  } else if (allocator_) {
    DeviceRuntime(*static_cast<const detail::DeviceRuntimeRecord*>(allocator_)).free(device_, data_, stream_);
  }
}

Dims contiguous_strides(ShapeView shape) {
  Dims strides(shape.size());
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    // Unsigned: a shape no tensor can have (past 2^63 elements) wraps instead of being undefined.
    stride = int64_t(uint64_t(stride) * uint64_t(shape[i]));
  }
  return strides;
}

namespace {

void check_device_index(const DeviceRuntime& rt, const Device& device) {
  if (device.index() < 0) return;
  int32_t count = rt.device_count();
  // No device at all: the runtime's own allocation failure says why (no driver, ...).
  if (count > 0 && device.index() >= count)
    throw ValueError("device " + device.str() + " does not exist: " + std::to_string(count) +
                     " device(s) of type '" + std::string(device.type()) + "'");
}

int64_t normalize_dim(int64_t dim, int64_t ndim, const char* what) {
  if (dim < -ndim || dim >= ndim)
    throw ValueError(std::string(what) + ": dim " + std::to_string(dim) +
                     " is out of range for a tensor of rank " + std::to_string(ndim));
  return dim < 0 ? dim + ndim : dim;
}

}  // namespace

Tensor Tensor::empty(ShapeView shape, DType dtype, Device device) {
  const size_t nbytes = size_t(contiguous_bytes("Tensor::empty", shape, dtype));
  auto rt = DeviceRuntime::of(device);
  check_device_index(rt, device);
  void* stream = current_stream(device);
  Tensor t;
  t.storage_ = std::make_shared<Storage>(Storage::Key{}, rt.alloc(device, nbytes, stream), nbytes, device);
  t.storage_->allocator_ = &rt.record();
  t.storage_->stream_ = stream;
  t.dtype_ = dtype;
  t.shape_.assign(shape.begin(), shape.end());
  t.strides_ = contiguous_strides(shape);
  return t;
}

Tensor Tensor::from_blob(void* data, ShapeView shape, DType dtype, Device device,
                         ShapeView strides, std::function<void(void*)> deleter) {
  const size_t nbytes = detail::wrapped_bytes("Tensor::from_blob", data, shape, dtype, strides);
  Tensor t;
  t.dtype_ = dtype;
  t.shape_.assign(shape.begin(), shape.end());
  if (strides.empty())
    t.strides_ = contiguous_strides(shape);
  else
    t.strides_.assign(strides.begin(), strides.end());
  t.storage_ = std::make_shared<Storage>(Storage::Key{}, data, nbytes, device);
  t.storage_->deleter_ = std::move(deleter);
  return t;
}

int64_t Tensor::size(int64_t dim) const {
  return shape_[size_t(normalize_dim(dim, ndim(), "Tensor::size"))];
}

bool Tensor::is_contiguous() const {
  int64_t expected = 1;
  for (size_t i = shape_.size(); i-- > 0;) {
    if (shape_[i] != 1 && strides_[i] != expected) return false;
    expected *= shape_[i];
  }
  return true;
}

Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;
  Tensor out = empty(shape(), dtype_, device());
  if (out.numel() == 0) return out;
  auto rt = DeviceRuntime::of(device());
  rt.copy_strided(out.data(), data(), device(), shape(), strides(), dtype_.itemsize(),
                  current_stream(device()));
  return out;
}

Tensor Tensor::to(const Device& target) const {
  if (!defined()) throw ValueError("Tensor::to: the tensor is undefined");
  if (device() == target) return *this;
  Tensor out = empty(shape(), dtype_, target);
  out.copy_from(*this);
  return out;
}

void Tensor::copy_from(const Tensor& src) {
  if (!defined() || !src.defined())
    throw ValueError(std::string("Tensor::copy_from: the ") + (defined() ? "source" : "destination") +
                     " is undefined");
  if (src.dtype_ != dtype_ || !std::equal(shape_.begin(), shape_.end(), src.shape_.begin(), src.shape_.end()))
    throw ValueError("Tensor::copy_from: source is " + std::string(src.dtype_.name()) +
                     format_shape(src.shape()) + ", destination is " + std::string(dtype_.name()) +
                     format_shape(shape()));
  if (!is_contiguous())
    throw ValueError("Tensor::copy_from: the destination must be contiguous");
  if (nbytes() == 0) return;
  Tensor from = src.contiguous();
  const Device& dst_dev = device();
  const Device& src_dev = from.device();
  if (!dst_dev.same_type(src_dev) && !dst_dev.is_cpu() && !src_dev.is_cpu()) {
    copy_from(from.to(Device::cpu()));  // two accelerators of different types: via the host
    return;
  }
  // The accelerator's runtime moves the bytes (CPU's when both are host memory).
  const Device& driver = dst_dev.is_cpu() ? src_dev : dst_dev;
  auto rt = DeviceRuntime::of(driver);
  void* stream = current_stream(driver);
  rt.copy(data(), dst_dev, from.data(), src_dev, nbytes(), stream);
  if (dst_dev.is_cpu() && !src_dev.is_cpu()) rt.synchronize(driver, stream);  // host reads next
}

Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  Tensor t = *this;
  auto a = size_t(normalize_dim(dim0, ndim(), "Tensor::transpose"));
  auto b = size_t(normalize_dim(dim1, ndim(), "Tensor::transpose"));
  std::swap(t.shape_[a], t.shape_[b]);
  std::swap(t.strides_[a], t.strides_[b]);
  return t;
}

Tensor Tensor::slice(int64_t dim, int64_t start, int64_t end) const {
  auto d = size_t(normalize_dim(dim, ndim(), "Tensor::slice"));
  if (start < 0 || end < start || end > shape_[d])
    throw ValueError("Tensor::slice: [" + std::to_string(start) + ", " + std::to_string(end) +
                     ") is out of range for dim " + std::to_string(dim) + " of size " +
                     std::to_string(shape_[d]));
  Tensor t = *this;
  t.offset_bytes_ += size_t(start * strides_[d]) * dtype_.itemsize();
  t.shape_[d] = end - start;
  return t;
}

Tensor Tensor::reshape(ShapeView new_shape) const {
  contiguous_bytes("Tensor::reshape", new_shape, dtype_);  // no negative dims, no element count past 2^63
  if (tileops::numel(new_shape) != numel())
    throw ValueError("Tensor::reshape: " + format_shape(shape()) + " has " +
                     std::to_string(numel()) + " elements, " + format_shape(new_shape) +
                     " needs " + std::to_string(tileops::numel(new_shape)));
  if (!is_contiguous()) throw ValueError("Tensor::reshape: the tensor must be contiguous");
  Tensor t = *this;
  t.shape_.assign(new_shape.begin(), new_shape.end());
  t.strides_ = contiguous_strides(new_shape);
  return t;
}

}  // namespace tileops
