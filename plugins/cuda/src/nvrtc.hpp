#pragma once
// NVRTC, opened with dlopen at first need (libnvrtc.so.13, then older sonames): compiles
// one program of kernel templates to a cubin for one architecture.
#include <string>
#include <utility>
#include <vector>

namespace tileops::cuda {

struct CompileRequest {
  std::string name;    // the program's name in NVRTC's messages
  std::string source;  // the main translation unit
  std::vector<std::pair<std::string, std::string>> headers;  // include name, contents
  std::vector<std::string> name_expressions;  // the template instances to compile
  std::vector<std::string> options;
};

struct CompileResult {
  std::string cubin;
  std::vector<std::string> lowered;  // mangled names, in the order of name_expressions
  std::string log;
};

// NVRTC's version as major * 1000 + minor * 10; throws sdk::Failure
// (TILEOPS_ERR_UNSUPPORTED, "no NVRTC library: ...") when no library loads.
int nvrtc_version();
// The architectures NVRTC can compile for (e.g. 90 for sm_90), ascending.
std::vector<int> nvrtc_archs();

// Whether compile() output is reproducible, one request always yielding the same cubin
// byte for byte: from NVRTC 12.9, which takes a fixed seed for its symbol names.
bool nvrtc_builds_reproducible();
// Whether NVRTC takes --minimal (12.4 and later), which leaves out of every program the
// texture and surface functions, the device runtime's API and the runtime API's types;
// false where no library loads (never throws).
bool nvrtc_takes_minimal();

// Compiles; throws sdk::Failure (TILEOPS_ERR_UNSUPPORTED) with NVRTC's log when the
// program does not compile.
CompileResult compile(const CompileRequest& request);

}  // namespace tileops::cuda
