#pragma once
// What every way of making a tensor checks of its shape (Tensor::empty, from_blob, from_dlpack).
#include <tileops/dtype.hpp>
#include <tileops/shape.hpp>

#include <cstdint>

namespace tileops::detail {

// The bytes `shape` of `dtype` spans contiguously. Throws ValueError, prefixed with `what`,
// for a negative dimension, and for a shape whose non-zero dimensions multiply past 2^63
// bytes: its element count would wrap (Tensor::empty of 2^62 float32 elements allocated 0
// bytes), and numel() with it.
int64_t contiguous_bytes(const char* what, ShapeView shape, DType dtype);

}  // namespace tileops::detail
