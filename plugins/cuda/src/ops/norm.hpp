#pragma once
// The norm kernel types' choices that the benchmark reuses without a GPU (ops/norm.cpp).
#include "rows.hpp"

namespace tileops::cuda {

// The most 16-byte vectors a thread of norm_smem keeps in registers (HeldCaps) for
// `kind` with the affine inputs `affine` (NormAffine), accessed `vec` elements at a time.
HeldCaps norm_held(tileops_cuda::NormKind kind, int affine, int vec);

}  // namespace tileops::cuda
