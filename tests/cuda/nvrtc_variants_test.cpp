// Compiles every kernel variant the CUDA plugin can build, with NVRTC, for sm_90a (the
// H100/H200 target), and every kernel an A100 call of the call corpus loads for sm_80,
// and checks that none uses local memory on sm_90a: no spills, and no stack frame either
// (an array the compiler could not keep in registers, as `--Ofast-compile=mid` left in
// the norm kernels, which ran 3-5x slower without spilling a byte). Needs NVRTC but no
// GPU: it runs in CI; without NVRTC it is skipped, saying so.
#include <doctest/doctest.h>

#include "call_corpus.hpp"
#include "jit.hpp"
#include "nvrtc.hpp"
#include "nvrtc_or_skip.hpp"
#include "ops/ops.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string_view>
#include <thread>

namespace cuda = tileops::cuda;

namespace {

constexpr size_t kKernelsPerProgram = 24;  // NVRTC compiles a batch faster than one by one

using KernelsByFamily = std::map<std::string, std::vector<std::string>>;

// The kernels of `programs` grouped by family, each once.
KernelsByFamily by_family(const std::vector<cuda::ProgramSpec>& programs) {
  KernelsByFamily out;
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& program : programs)
    for (const auto& k : program.kernels)
      if (seen.insert({program.family, k}).second) out[program.family].push_back(k);
  return out;
}

struct Outcome {
  std::string what;  // the batch
  std::string failure;
};

// The functions ptxas's verbose `log` gives a stack frame or spills, with its line for
// each ("" when none has).
std::string local_memory_users(const std::string& log) {
  static const std::regex usage(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  constexpr std::string_view kNames = "Function properties for ";
  std::istringstream lines(log);
  std::string function, users;
  for (std::string line; std::getline(lines, line);) {
    const auto named = line.find(kNames);
    if (named != std::string::npos) function = line.substr(named + kNames.size());
    std::smatch m;
    if (std::regex_search(line, m, usage) && (m[1] != "0" || m[2] != "0" || m[3] != "0"))
      users += "local memory in " + function + ": " + m.str() + "\n";
  }
  return users;
}

Outcome compile_batch(const std::string& family, const std::vector<std::string>& kernels, int arch,
                      bool no_local_memory) {
  cuda::CompileRequest request = cuda::compile_request({family, kernels}, arch);
  if (no_local_memory) request.options.push_back("--ptxas-options=--verbose");
  for (auto& o : cuda::nvrtc_cache_bypass()) request.options.push_back(std::move(o));  // ptxas's log every time
  Outcome out{family + ".cuh [" + kernels.front() + " .. " + kernels.back() + "]", {}};
  try {
    const cuda::CompileResult result = cuda::compile(request);
    if (result.cubin.empty()) out.failure = "empty cubin";
    if (no_local_memory) out.failure += local_memory_users(result.log);
  } catch (const std::exception& e) {
    out.failure = e.what();
  }
  return out;
}

// Compiles `kernels` for sm_`arch`, in batches on every core (NVRTC compiles separate
// programs concurrently), and checks each batch.
void compile_all(const KernelsByFamily& kernels, int arch, bool no_local_memory) {
  const auto archs = cuda::nvrtc_archs();
  REQUIRE_MESSAGE(std::find(archs.begin(), archs.end(), arch) != archs.end(), "this NVRTC cannot target sm_" << arch);
  std::vector<std::pair<std::string, std::vector<std::string>>> batches;
  size_t total = 0;
  for (const auto& [family, ks] : kernels) {
    total += ks.size();
    for (size_t i = 0; i < ks.size(); i += kKernelsPerProgram)
      batches.emplace_back(family, std::vector<std::string>(ks.begin() + std::ptrdiff_t(i),
                                                            ks.begin() + std::ptrdiff_t(std::min(ks.size(), i + kKernelsPerProgram))));
  }
  MESSAGE("compiling " << total << " kernels in " << batches.size() << " NVRTC programs for sm_" << arch);
  const size_t workers = std::max(2u, std::thread::hardware_concurrency());
  std::vector<Outcome> outcomes(batches.size());
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  for (size_t w = 0; w < workers; ++w)
    threads.emplace_back([&] {
      for (size_t i; (i = next++) < batches.size();)
        outcomes[i] = compile_batch(batches[i].first, batches[i].second, arch, no_local_memory);
    });
  for (auto& t : threads) t.join();
  for (const auto& o : outcomes) CHECK_MESSAGE(o.failure.empty(), o.what << ": " << o.failure);
}

}  // namespace

TEST_CASE("every kernel variant compiles with NVRTC for sm_90a using no local memory") {
  if (!nvrtc_or_skip()) return;
  compile_all(by_family(cuda::all_programs()), 90, true);
}

// sm_80's plans (no clusters, no shared-memory rows, split column sums) are not listed
// exhaustively: the kernels that the corpus's calls load on an A100 stand for them.
// Spills are allowed there (the tuning targets the H200).
TEST_CASE("every kernel an A100 call of the corpus loads compiles with NVRTC for sm_80") {
  if (!nvrtc_or_skip()) return;
  std::vector<cuda::ProgramSpec> programs;
  cuda::test::for_each_accepted(cuda::test::kA100, [&](const cuda::KernelTypeDef& def, cuda::test::TestCall&,
                                                       const cuda::Call& call) {
    for (auto& p : def.programs(call)) programs.push_back(std::move(p));
  });
  compile_all(by_family(programs), 80, false);
}
