#include "jit_times.hpp"

#include "nvrtc.hpp"
#include "ops/norm.hpp"
#include "ops/rows.hpp"
#include "temp_cache_dir.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace tileops::cuda::bench {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// The programs timed: the norm kernel type's register form for rows up to 16K elements
// (RMSNorm with weight, LayerNorm f16 with both affine inputs), and its forms for longer
// rows as the planner picks them on the H200 (227 KB of shared memory a CTA; the norms'
// caps of 16-bit rows' vectors a thread in registers): RMSNorm [64, 65536] (registers of
// a cluster), GroupNorm [8, 512, 128, 128] without affine inputs, as the workload row (a
// cluster's shared memory, 3 vectors a thread in registers), GroupNorm VAE [1, 256, 512,
// 512] (bf16: the queue; fp32: the grid form) and the VAE's scalar twin, built beside it
// for pointers found misaligned; then a softmax and an elementwise program.
std::vector<ProgramSpec> timed_programs() {
  const auto plan = plan_rows(8192, 8, {90, 8192, 132, 0});
  const auto on_h200 = [](int64_t rows) {
    return RowContext{90, rows, 132, 232448, true, norm_held(tileops_cuda::kGroup, 0, 8)};
  };
  const auto norm = [](const char* type_kind_affine, const RowPlan& rows) {
    return ProgramSpec{"norm", {"tileops_cuda::" + rows.kernel("norm") + "<" + type_kind_affine + ", " +
                                rows.template_args() + ">"}};
  };
  return {
      norm("tileops_cuda::bf16, 0, 1", plan),
      norm("tileops_cuda::f16, 2, 3", plan),
      norm("tileops_cuda::bf16, 0, 1", plan_rows(65536, 8, on_h200(64))),
      norm("tileops_cuda::bf16, 3, 0", plan_rows(262144, 8, on_h200(256))),
      norm("tileops_cuda::bf16, 3, 3", plan_rows(2097152, 8, on_h200(32))),
      norm("float, 3, 3", plan_rows(2097152, 4, on_h200(32))),
      norm("tileops_cuda::bf16, 3, 3", fallback_rows(2097152, on_h200(32))),
      {"softmax", {"tileops_cuda::softmax_reg<float, 0, " + plan_rows(8192, 4, {90, 8192, 132, 0}).template_args() + ">"}},
      {"elementwise", {"tileops_cuda::unary<tileops_cuda::bf16, 3, 8, 4>"}},
  };
}

bool wanted(const ProgramSpec& p, const std::vector<std::string>& filters) {
  if (filters.empty()) return true;
  return std::any_of(filters.begin(), filters.end(),
                     [&](const std::string& f) { return p.kernels[0].find(f) != std::string::npos; });
}

}  // namespace

double JitTimes::sorted(size_t i) const {
  std::vector<double> v = compiles_ms;
  std::sort(v.begin(), v.end());
  return v.at(i);
}

std::vector<JitTimes> jit_times(int compiles, const std::vector<std::string>& filters,
                                const std::function<void(const Cubin&)>& load) {
  const test::TempCacheDir cache;
  nvrtc_version();  // opens NVRTC outside the timing, as a loaded plugin would have
  std::vector<JitTimes> out;
  for (const auto& p : timed_programs()) {
    if (!wanted(p, filters)) continue;
    JitTimes t{p.kernels[0], {}, -1};
    for (int i = 0; i < compiles; ++i) {
      const auto t0 = Clock::now();
      get_cubin(p, 90, Build::from_scratch);
      t.compiles_ms.push_back(ms_since(t0));
    }
    const auto t0 = Clock::now();
    const Cubin hit = get_cubin(p, 90);
    load(hit);
    if (hit.origin == CubinOrigin::disk_cache) t.cache_hit_ms = ms_since(t0);
    out.push_back(std::move(t));
  }
  return out;
}

std::string jit_table(const std::vector<JitTimes>& times, const std::string& hit) {
  std::ostringstream md;
  md << std::fixed << std::setprecision(1);
  const size_t n = times.empty() ? 0 : times[0].compiles_ms.size();
  md << "## JIT\n\n| program | first build (NVRTC from scratch) ms, median of " << n
     << " | best | worst | each, in order | disk-cache hit (" << hit << ") ms |\n"
     << "| --- | ---: | ---: | ---: | --- | ---: |\n";
  for (const auto& j : times) {
    md << "| `" << j.program << "` | " << j.sorted(n / 2) << " | " << j.sorted(0) << " | " << j.sorted(n - 1) << " |";
    for (const double ms : j.compiles_ms) md << " " << std::lround(ms);
    md << " | " << std::setprecision(2) << j.cache_hit_ms << std::setprecision(1) << " |\n";
  }
  md << "\nTargets: first build <= 150 ms, disk-cache hit <= 2 ms.\n";
  return md.str();
}

}  // namespace tileops::cuda::bench
