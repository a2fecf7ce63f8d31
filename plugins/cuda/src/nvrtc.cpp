#include "nvrtc.hpp"

#include <tileops/cuda/driver_probe.hpp>
#include <tileops/sdk/plugin.hpp>

#include <dlfcn.h>
#include <nvrtc.h>

namespace tileops::cuda {
namespace {

#define TILEOPS_NVRTC_FUNCTIONS(X) \
  X(nvrtcVersion)                  \
  X(nvrtcGetNumSupportedArchs)     \
  X(nvrtcGetSupportedArchs)        \
  X(nvrtcGetErrorString)           \
  X(nvrtcCreateProgram)            \
  X(nvrtcDestroyProgram)           \
  X(nvrtcAddNameExpression)        \
  X(nvrtcCompileProgram)           \
  X(nvrtcGetProgramLogSize)        \
  X(nvrtcGetProgramLog)            \
  X(nvrtcGetCUBINSize)             \
  X(nvrtcGetCUBIN)                 \
  X(nvrtcGetLoweredName)

struct Nvrtc {
#define TILEOPS_NVRTC_DECLARE(name) decltype(&::name) name = nullptr;
  TILEOPS_NVRTC_FUNCTIONS(TILEOPS_NVRTC_DECLARE)
#undef TILEOPS_NVRTC_DECLARE
  int version = 0;
  std::vector<int> archs;
  std::string failure;
};

const Nvrtc& lib() {
  static const Nvrtc* instance = [] {
    auto* n = new Nvrtc();  // lives for the process, like the library it points into
    const LibraryProbe probe = open_first(kNvrtcSonames);
    if (!probe.handle) {
      n->failure = no_nvrtc_message(probe);
      return n;
    }
#define TILEOPS_NVRTC_RESOLVE(name)                                                        \
  n->name = reinterpret_cast<decltype(n->name)>(dlsym(probe.handle, #name));              \
  if (!n->name && n->failure.empty()) n->failure = "NVRTC library " + probe.soname + " lacks " #name;
    TILEOPS_NVRTC_FUNCTIONS(TILEOPS_NVRTC_RESOLVE)
#undef TILEOPS_NVRTC_RESOLVE
    if (!n->failure.empty()) return n;
    int major = 0, minor = 0;
    n->nvrtcVersion(&major, &minor);
    n->version = major * 1000 + minor * 10;
    int count = 0;
    if (n->nvrtcGetNumSupportedArchs(&count) == NVRTC_SUCCESS && count > 0) {
      n->archs.resize(size_t(count));
      n->nvrtcGetSupportedArchs(n->archs.data());
    }
    return n;
  }();
  return *instance;
}

const Nvrtc& loaded() {
  const Nvrtc& n = lib();
  if (!n.failure.empty()) sdk::unsupported(n.failure);
  return n;
}

// NVRTC names a header's namespace-scope constants (common.cuh's kLog2e, in every
// program) after a number it draws per build, so without a fixed seed two builds of one
// program differ in a few bytes.
constexpr const char* kSeed = "--frandom-seed=tileops";

// Destroys the program however compile() leaves.
struct Program {
  const Nvrtc& n;
  nvrtcProgram handle = nullptr;
  ~Program() {
    if (handle) n.nvrtcDestroyProgram(&handle);
  }
};

}  // namespace

int nvrtc_version() { return loaded().version; }

std::vector<int> nvrtc_archs() { return loaded().archs; }

// 12.9 is the first NVRTC that takes --frandom-seed (12.0, 12.4, 12.6 and 12.8 reject it).
bool nvrtc_builds_reproducible() { return nvrtc_version() >= 12090; }

bool nvrtc_takes_minimal() { return lib().failure.empty() && lib().version >= 12040; }

CompileResult compile(const CompileRequest& request) {
  const Nvrtc& n = loaded();
  auto fail = [&](const std::string& what, nvrtcResult r, const std::string& log) {
    sdk::unsupported("NVRTC " + std::to_string(n.version / 1000) + "." +
                     std::to_string(n.version % 1000 / 10) + " could not " + what + " " +
                     request.name + ": " + n.nvrtcGetErrorString(r) +
                     (log.empty() ? std::string() : "\n" + log));
  };
  std::vector<const char*> header_names, header_bodies;
  for (const auto& [name, body] : request.headers) {
    header_names.push_back(name.c_str());
    header_bodies.push_back(body.c_str());
  }
  Program program{n};
  nvrtcResult r = n.nvrtcCreateProgram(&program.handle, request.source.c_str(), request.name.c_str(),
                                       int(header_names.size()), header_bodies.data(), header_names.data());
  if (r != NVRTC_SUCCESS) fail("create a program for", r, {});
  for (const auto& expr : request.name_expressions)
    if ((r = n.nvrtcAddNameExpression(program.handle, expr.c_str())) != NVRTC_SUCCESS)
      fail("add the name expression " + expr + " to", r, {});
  std::vector<const char*> options;
  for (const auto& o : request.options) options.push_back(o.c_str());
  if (nvrtc_builds_reproducible()) options.push_back(kSeed);
  const nvrtcResult compiled = n.nvrtcCompileProgram(program.handle, int(options.size()), options.data());
  CompileResult out;
  size_t log_size = 0;
  if (n.nvrtcGetProgramLogSize(program.handle, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    out.log.resize(log_size);
    n.nvrtcGetProgramLog(program.handle, out.log.data());
    out.log.resize(log_size - 1);  // the terminating NUL
  }
  if (compiled != NVRTC_SUCCESS) fail("compile", compiled, out.log);
  size_t cubin_size = 0;
  if ((r = n.nvrtcGetCUBINSize(program.handle, &cubin_size)) != NVRTC_SUCCESS || cubin_size == 0)
    fail("produce a cubin (is --gpu-architecture a real sm_XY?) for", r, out.log);
  out.cubin.resize(cubin_size);
  n.nvrtcGetCUBIN(program.handle, out.cubin.data());
  for (const auto& expr : request.name_expressions) {
    const char* lowered = nullptr;
    if ((r = n.nvrtcGetLoweredName(program.handle, expr.c_str(), &lowered)) != NVRTC_SUCCESS || !lowered)
      fail("lower the name expression " + expr + " of", r, out.log);
    out.lowered.emplace_back(lowered);
  }
  return out;
}

}  // namespace tileops::cuda
