// The bandwidth peer of memory-bound ops: a device-to-device copy through the device
// runtime (cuMemcpyDtoDAsync on CUDA, memcpy on the CPU) of the bytes the op moves.
#include "baseline.hpp"

#include <algorithm>

namespace tileops::bench {
namespace {

class CopyBaseline final : public Baseline {
 public:
  CopyBaseline(const Device& device, int64_t half)
      : src_(Tensor::empty({half}, dtypes::uint8, device)), dst_(Tensor::empty({half}, dtypes::uint8, device)) {
    // The source holds ones, not uninitialised memory: a copy reads what it copies.
    Tensor ones = Tensor::empty({half}, dtypes::uint8);
    std::fill_n(ones.data_ptr<uint8_t>(), half, uint8_t(1));
    src_.copy_from(ones);
  }
  std::string_view name() const override { return "copy"; }
  void run() override { dst_.copy_from(src_); }

 private:
  Tensor src_, dst_;
};

}  // namespace

std::unique_ptr<Baseline> copy_baseline(const Device& device, double bytes) {
  // Read plus written equals the op's bytes; 256-byte multiples keep the copy aligned.
  const int64_t half = std::max<int64_t>(256, int64_t(bytes / 2) / 256 * 256);
  return std::make_unique<CopyBaseline>(device, half);
}

}  // namespace tileops::bench
