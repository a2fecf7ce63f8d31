#pragma once
// What an op's time is compared with: a library call doing the same job (cuBLASLt for
// GEMMs) or the cheapest way to move the same bytes (a device copy).
#include <tileops/tensor.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace tileops::bench {

class Baseline {
 public:
  virtual ~Baseline() = default;
  // "copy", "cublaslt": the `baseline` column.
  virtual std::string_view name() const = 0;
  // One call on the device's current stream.
  virtual void run() = 0;
};

// y = op(a) @ op(b) per batch, row-major, as GemmFwdOp (batch 1) and BmmFwdOp compute it.
struct MatmulCall {
  Tensor a, b;
  int64_t batch = 1, m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
};

// Copies half of `bytes` from one device buffer to another: as many bytes read and
// written as the op moves.
std::unique_ptr<Baseline> copy_baseline(const Device& device, double bytes);

}  // namespace tileops::bench
