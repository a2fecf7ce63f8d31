// bench_cuda_jit: the CUDA plugin's NVRTC first-build and disk-cache-hit times on any
// machine with NVRTC, no GPU or driver needed (bench_cuda times the same programs on the
// GPU machine, its hit loading the module too). For work on a kernel's build time
// between GPU sessions; this machine's CPU, not the GPU host's, sets the numbers.
//
//   bench_cuda_jit [--compiles N] [--filter TEXT[,TEXT...]]
//
// --compiles: builds from scratch per program (default 7). --filter keeps the programs
// whose kernel name expression contains any of the texts, e.g. --filter norm_smem.
#include "jit_times.hpp"
#include "nvrtc.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Options {
  int compiles = 7;
  std::vector<std::string> filters;
};

int usage(const char* why) {
  std::fprintf(stderr, "bench_cuda_jit: %s\nusage: bench_cuda_jit [--compiles N] [--filter TEXT[,TEXT...]]\n", why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; i += 2) {
    const std::string k = argv[i];
    if (i + 1 >= argc) return usage(("no value after " + k).c_str());
    const std::string v = argv[i + 1];
    if (k == "--compiles") {
      opt.compiles = std::atoi(v.c_str());
      if (opt.compiles < 1) return usage(("--compiles takes a positive count, got '" + v + "'").c_str());
    } else if (k == "--filter") {
      std::stringstream list(v);
      for (std::string f; std::getline(list, f, ',');) opt.filters.push_back(f);
    } else {
      return usage(("unknown option '" + k + "'").c_str());
    }
  }
  try {
    std::printf("bench_cuda_jit: NVRTC %d, sm_90a, %d builds a program\n\n", tileops::cuda::nvrtc_version(),
                opt.compiles);
    const auto times = tileops::cuda::bench::jit_times(opt.compiles, opt.filters, [](const tileops::cuda::Cubin&) {});
    std::fputs(tileops::cuda::bench::jit_table(times, "read and verify").c_str(), stdout);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cuda_jit: %s\n", e.what());
    return 1;
  }
}
