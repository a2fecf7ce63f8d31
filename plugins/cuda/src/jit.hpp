#pragma once
// Run-time compilation of the kernel sources (kernels/*.cuh, embedded in the plugin):
// a program is one family header plus the template instances to compile. Loading a
// program on a device looks in three places, in order: the process's modules, the
// on-disk cubin cache, NVRTC (whose result then goes to the disk cache). Builds call
// this; launches never do.
#include "devices.hpp"
#include "nvrtc.hpp"

#include <tileops/cuda/cubin_cache.hpp>
#include <tileops/embedded.hpp>

#include <cuda.h>

#include <span>
#include <string>
#include <vector>

namespace tileops::cuda {

struct ProgramSpec {
  std::string family;                // "norm": kernels/norm.cuh is the translation unit
  std::vector<std::string> kernels;  // name expressions: "tileops_cuda::norm_reg<...>"
};

struct Module {
  CUmodule module = nullptr;
  std::vector<CUfunction> functions;  // in the order of ProgramSpec::kernels
};

// Loads each program on `device` (made current), compiling the missing ones
// concurrently. Modules stay loaded for the process. Throws sdk::Failure: a compile error
// is TILEOPS_ERR_UNSUPPORTED with NVRTC's log.
std::vector<const Module*> load_programs(const DeviceInfo& device, const std::vector<ProgramSpec>& programs);
inline const Module& load_program(const DeviceInfo& device, const ProgramSpec& program) {
  return *load_programs(device, {program}).front();
}

// ---- the pieces, for tests and the benchmark ---------------------------------------

// The kernel sources compiled into the plugin.
std::span<const EmbeddedFile> kernel_sources();
// What goes into every cache key besides the program: plugin version and build.
const char* plugin_build_id();
// NVRTC options for a device of compute capability `arch` (90 -> sm_90a).
std::vector<std::string> compile_options(int arch);
CompileRequest compile_request(const ProgramSpec& program, int arch);
cache::Digest cache_key(const CompileRequest& request, int arch, int nvrtc_version);

enum class CubinOrigin { compiled, disk_cache };
struct Cubin {
  cache::Entry entry;
  CubinOrigin origin = CubinOrigin::compiled;
};
// NVRTC's options that bypass its own cache of compiled output (`--no-cache`: NVRTC 12.9
// and later reuse a program's earlier build across processes, through the CUDA JIT cache
// in ~/.nv/ComputeCache where a driver is installed), or none before 12.9. They do not
// change the cubin, so they are not in the cache key.
std::vector<std::string> nvrtc_cache_bypass();

// How get_cubin may reuse earlier builds: `reuse` reads the disk cache (and lets NVRTC
// use its own); `from_scratch` compiles every stage, bypassing both, as the benchmark
// times a first build.
enum class Build { reuse, from_scratch };
// The cubin of `program` for `arch`: from the disk cache when `build` allows it and an
// intact entry exists, else compiled (and then written to the cache). A corrupt entry is
// logged, recompiled and overwritten.
Cubin get_cubin(const ProgramSpec& program, int arch, Build build = Build::reuse);

}  // namespace tileops::cuda
