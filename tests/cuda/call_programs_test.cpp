// The programs a call's kernel type loads (KernelTypeDef::programs, what build compiles),
// over calls of every op across dtypes, row-length classes, empty tensors, axes and
// broadcasts. On an H200's facts each must be among all_programs(), which
// test_cuda_nvrtc_variants compiles, or CI would pass a kernel that NVRTC cannot build.
// On an H200's and an A100's, planning never crashes, and calls with the same identity,
// which share one kernel, load the same programs (test_cuda_nvrtc_variants compiles the
// A100's for sm_80). The calls: call_corpus.hpp. No GPU needed.
#include "call_corpus.hpp"

#include "ops/ops.hpp"

#include <doctest/doctest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace cuda = tileops::cuda;
using cuda::test::for_each_accepted, cuda::test::kA100, cuda::test::kH200, cuda::test::TestCall;

namespace {

std::string describe(const std::vector<cuda::ProgramSpec>& programs) {
  std::string out;
  for (const auto& p : programs) {
    out += p.family + ":";
    for (const auto& k : p.kernels) out += " " + k;
    out += "; ";
  }
  return out;
}

}  // namespace

TEST_CASE("every program an H200 call loads is one the NVRTC variants test compiles") {
  std::set<std::pair<std::string, std::string>> listed;  // (family, kernel)
  for (const auto& p : cuda::all_programs())
    for (const auto& k : p.kernels) listed.insert({p.family, k});
  size_t checked = 0;
  const size_t calls =
      for_each_accepted(kH200, [&](const cuda::KernelTypeDef& def, TestCall& c, const cuda::Call& call) {
        for (const auto& p : def.programs(call))
          for (const auto& k : p.kernels) {
            CHECK_MESSAGE(listed.count({p.family, k}), std::string(def.op)
                                                           << " " << c.label() << " loads " << p.family << ".cuh " << k
                                                           << ", which all_programs() does not list");
            ++checked;
          }
      });
  MESSAGE(checked << " kernels of " << calls << " accepted calls checked");
}

TEST_CASE("calls with the same identity load the same programs, on an H200 and on an A100") {
  std::map<std::string, std::pair<std::string, std::string>> seen;  // identity -> (call, programs)
  size_t shared = 0;
  for (const tileops_device_facts* facts : {&kH200, &kA100})
    for_each_accepted(*facts, [&](const cuda::KernelTypeDef& def, TestCall& c, const cuda::Call& call) {
      const std::string programs = describe(def.programs(call));
      const auto [it, added] = seen.emplace(def.identity(call), std::make_pair(c.label(), programs));
      if (added) return;
      ++shared;
      CHECK_MESSAGE(it->second.second == programs,
                    std::string(def.op) << " " << c.label() << " and " << it->second.first << " share the identity "
                                        << it->first << " but load " << programs << " and " << it->second.second);
    });
  MESSAGE(shared << " calls shared an identity with an earlier one");
  CHECK(shared > 1000);
}
