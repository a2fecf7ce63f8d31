#pragma once
// Rotary position embedding (vLLM rotary_embedding, one tensor at a time).
#include <cstdint>
#include <span>

namespace tileops::cpu_ref {

enum class RopeLayout { neox, interleaved };

// x [*batch, heads, head_dim] T; positions [*batch] P (int32_t or int64_t);
// cos_sin_cache [max_positions, rot_dim] float32, row p = cos(p*theta_0..), sin(p*theta_0..).
// The first rot_dim dims of every head are rotated in pairs, (i, i + rot_dim/2) for
// neox and (2i, 2i + 1) for interleaved:
//   y1 = x1 cos - x2 sin,   y2 = x2 cos + x1 sin;
// the remaining dims pass through. A position outside [0, max_positions) fails with
// sdk::invalid naming its index and value, before anything is written.
template <class T, class P>
void rope(const T* x, const P* positions, const float* cos_sin_cache, T* y,
          std::span<const int64_t> batch_shape, int64_t heads, int64_t head_dim,
          int64_t max_positions, int64_t rot_dim, RopeLayout layout);

}  // namespace tileops::cpu_ref
