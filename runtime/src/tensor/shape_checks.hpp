#pragma once
// What every way of making a tensor checks of its shape (Tensor::empty, from_blob, from_dlpack).
#include <tileops/dtype.hpp>
#include <tileops/shape.hpp>

#include <cstddef>
#include <cstdint>

namespace tileops::detail {

// The bytes `shape` of `dtype` spans contiguously. Throws ValueError, prefixed with `what`,
// for an element type that is not a positive whole number of bytes (sizes are counted in
// whole elements: a packed 4-bit type would be read as twice its bytes), for a negative
// dimension, and for a shape whose non-zero dimensions multiply past 2^63 bytes: its
// element count would wrap (Tensor::empty of 2^62 float32 elements allocated 0 bytes), and
// numel() with it.
int64_t contiguous_bytes(const char* what, ShapeView shape, DType dtype);

// The bytes caller memory at `data` must hold for a tensor of `shape`, `dtype` and
// `strides` (empty: contiguous): one past its furthest element. Checks as contiguous_bytes
// does, and throws ValueError, prefixed with `what`, for strides of another rank, a
// negative stride (the tensor would reach below `data`, outside the storage it records),
// strides reaching past 2^63 elements, and a null `data` under a tensor with elements.
size_t wrapped_bytes(const char* what, const void* data, ShapeView shape, DType dtype, ShapeView strides);

}  // namespace tileops::detail
