#pragma once
// Normalisations over contiguous row-major buffers. T: float, f16 or bf16. `weight` and
// `bias` may be null (absent optional inputs). Statistics are computed in double.
#include <cstdint>

namespace tileops::cpu_ref {

// torch.nn.functional.rms_norm over `rows` rows of `cols` elements:
// y = x / sqrt(mean(x^2) + eps) * weight.
template <class T>
void rms_norm(const T* x, const T* weight, T* y, int64_t rows, int64_t cols, double eps);

// vLLM fused_add_rms_norm: residual += x (rounded to T, in place), then
// y = rms_norm(residual, weight, eps) of the updated residual.
template <class T>
void fused_add_rms_norm(const T* x, T* residual, const T* weight, T* y, int64_t rows,
                        int64_t cols, double eps);

// torch.nn.functional.layer_norm: y = (x - mean) / sqrt(var + eps) * weight + bias,
// with the biased variance.
template <class T>
void layer_norm(const T* x, const T* weight, const T* bias, T* y, int64_t rows, int64_t cols,
                double eps);

// torch.nn.functional.group_norm on x [batch, channels, spatial] (spatial = the product
// of the trailing dims): statistics per (sample, group of channels / groups channels);
// weight and bias are per channel.
template <class T>
void group_norm(const T* x, const T* weight, const T* bias, T* y, int64_t batch,
                int64_t channels, int64_t spatial, int64_t groups, double eps);

}  // namespace tileops::cpu_ref
