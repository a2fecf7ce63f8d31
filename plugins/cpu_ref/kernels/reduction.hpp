#pragma once
// Reductions and scans over contiguous row-major buffers.
//
// Single-axis ops take the input as an `Axis` view [outer, size, inner]; multi-axis
// reductions take the input shape and the sorted, distinct axes reduced, and write the
// kept axes in order (keepdim only inserts 1s: the layout is the same).
// T: float, f16, bf16; the ops that also take integers say so.
#include "kernels/indexing.hpp"

#include <cstdint>
#include <span>

namespace tileops::cpu_ref {

// torch.softmax / torch.log_softmax along the axis.
template <class T>
void softmax(const T* x, T* y, Axis axis);
template <class T>
void log_softmax(const T* x, T* y, Axis axis);

// torch.cumsum along the axis. Also T = int64_t (exact, wrapping).
template <class T>
void cumsum(const T* x, T* y, Axis axis);

// torch.sum / torch.mean over `axes` of `shape` (a mean over no element is NaN).
template <class T>
void sum(const T* x, T* y, std::span<const int64_t> shape, std::span<const int64_t> axes);
template <class T>
void mean(const T* x, T* y, std::span<const int64_t> shape, std::span<const int64_t> axes);

// torch.amax over `axes` of `shape`; NaN propagates. Also T = int32_t, int64_t. Every
// reduced axis must be non-empty.
template <class T>
void amax(const T* x, T* y, std::span<const int64_t> shape, std::span<const int64_t> axes);

// torch.argmax along the axis (the flattened tensor: Axis{1, numel, 1}). The first
// maximum wins; NaN counts as the maximum. Also T = int32_t, int64_t. The axis must be
// non-empty.
template <class T>
void argmax(const T* x, int64_t* y, Axis axis);

}  // namespace tileops::cpu_ref
