#include "calibrate.hpp"

#include "timing_loop.hpp"

#include <tileops/errors.hpp>
#include <tileops/sdk/half.hpp>

#include <chrono>
#include <ctime>
#include <random>

namespace tileops::bench {
namespace {

constexpr double kCopyBytes = double(uint64_t(2) << 30);  // 1 GiB read, 1 GiB written
constexpr int64_t kGemmSize = 8192;

// Uniform bf16 values in [-1, 1) on `device`: a GEMM is never timed on zeros.
Tensor random_bf16(int64_t rows, int64_t cols, const Device& device, uint64_t seed) {
  Tensor host = Tensor::empty({rows, cols}, dtypes::bfloat16);
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  auto* bits = host.data_ptr<uint16_t>();
  for (int64_t i = 0; i < host.numel(); ++i) bits[i] = sdk::float_to_bf16_bits(u(gen));
  Tensor out = Tensor::empty({rows, cols}, dtypes::bfloat16, device);
  out.copy_from(host);
  return out;
}

std::string utc_date() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &tm);
  return text;
}

Spread time_alone(RunDevice& device, Baseline& work, int warmup, int reps) {
  const TimedCall call = [&](int) {
    work.run();
    return std::vector<Tensor>();
  };
  return spread_of(time_in_turn(device, warmup, reps, std::span(&call, 1))[0]);
}

}  // namespace

CalibrationReport calibrate(RunDevice& device, int warmup, int reps) {
  CalibrationReport report;
  report.copy_bytes = kCopyBytes;
  report.gemm_size = kGemmSize;
  const MatmulCall gemm{random_bf16(kGemmSize, kGemmSize, device.device(), 1),
                        random_bf16(kGemmSize, kGemmSize, device.device(), 2), 1, kGemmSize, kGemmSize, kGemmSize};
  std::string why;
  std::unique_ptr<Baseline> matmul = device.matmul_baseline(gemm, why);
  if (!matmul) throw BackendError("--calibrate needs a device with cuBLASLt: " + why);
  std::unique_ptr<Baseline> copy = copy_baseline(device.device(), kCopyBytes);

  report.copy_time = time_alone(device, *copy, warmup, reps);
  report.gemm_time = time_alone(device, *matmul, warmup, reps);
  const double flops = 2.0 * double(kGemmSize) * double(kGemmSize) * double(kGemmSize);
  report.values = {utc_date(), kCopyBytes / (report.copy_time.median_us * 1e-6) / 1e12,
                   flops / (report.gemm_time.median_us * 1e-6) / 1e12};
  return report;
}

}  // namespace tileops::bench
