// Compiles every kernel variant the CUDA plugin can build, with NVRTC, for sm_90a (the
// H100/H200 target), and checks that none spills registers to local memory. Needs NVRTC
// but no GPU: it runs in CI; without NVRTC it is skipped, saying so.
#include <doctest/doctest.h>

#include "jit.hpp"
#include "nvrtc.hpp"
#include "nvrtc_or_skip.hpp"
#include "ops/ops.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <thread>

namespace cuda = tileops::cuda;

namespace {

constexpr int kArch = 90;
constexpr size_t kKernelsPerProgram = 24;  // NVRTC compiles a batch faster than one by one

// Kernels grouped by family, each once.
std::map<std::string, std::vector<std::string>> kernels_by_family() {
  std::map<std::string, std::vector<std::string>> out;
  std::set<std::string> seen;
  for (const auto& program : cuda::all_programs())
    for (const auto& k : program.kernels)
      if (seen.insert(k).second) out[program.family].push_back(k);
  return out;
}

struct Outcome {
  std::string what;  // the batch
  std::string failure;
};

Outcome compile_batch(const std::string& family, const std::vector<std::string>& kernels) {
  cuda::CompileRequest request = cuda::compile_request({family, kernels}, kArch);
  request.options.push_back("--ptxas-options=--warn-on-spills");
  for (auto& o : cuda::nvrtc_cache_bypass()) request.options.push_back(std::move(o));  // ptxas's log every time
  Outcome out{family + ".cuh [" + kernels.front() + " .. " + kernels.back() + "]", {}};
  try {
    const cuda::CompileResult result = cuda::compile(request);
    if (result.cubin.empty()) out.failure = "empty cubin";
    if (result.log.find("spill") != std::string::npos) out.failure = "register spills:\n" + result.log;
  } catch (const std::exception& e) {
    out.failure = e.what();
  }
  return out;
}

}  // namespace

TEST_CASE("every kernel variant compiles with NVRTC for sm_90a without spilling") {
  if (!nvrtc_or_skip()) return;
  const auto archs = cuda::nvrtc_archs();
  REQUIRE_MESSAGE(std::find(archs.begin(), archs.end(), kArch) != archs.end(), "this NVRTC cannot target sm_90");
  std::vector<std::pair<std::string, std::vector<std::string>>> batches;
  size_t total = 0;
  for (const auto& [family, kernels] : kernels_by_family()) {
    total += kernels.size();
    for (size_t i = 0; i < kernels.size(); i += kKernelsPerProgram)
      batches.emplace_back(family, std::vector<std::string>(kernels.begin() + std::ptrdiff_t(i),
                                                            kernels.begin() + std::ptrdiff_t(std::min(kernels.size(), i + kKernelsPerProgram))));
  }
  MESSAGE("compiling " << total << " kernels in " << batches.size() << " NVRTC programs");
  // NVRTC compiles separate programs concurrently.
  const size_t workers = std::max(2u, std::thread::hardware_concurrency());
  std::vector<Outcome> outcomes(batches.size());
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  for (size_t w = 0; w < workers; ++w)
    threads.emplace_back([&] {
      for (size_t i; (i = next++) < batches.size();) outcomes[i] = compile_batch(batches[i].first, batches[i].second);
    });
  for (auto& t : threads) t.join();
  for (const auto& o : outcomes) CHECK_MESSAGE(o.failure.empty(), o.what << ": " << o.failure);
}
