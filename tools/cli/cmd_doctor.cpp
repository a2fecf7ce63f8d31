// tileops doctor: where plugins are searched, what loaded, whether the CUDA driver
// and NVRTC can be opened (and why not), the ABI version.
#include "commands.hpp"
#include "output.hpp"

#include <tileops/abi.h>
#include <tileops/backend.hpp>

#include <dlfcn.h>

#include <filesystem>
#include <iostream>

namespace tileops::cli {
namespace {

// Opens the first library of `sonames` that loads; reports it, or every dlerror.
std::string probe(std::initializer_list<const char*> sonames, const char* version_symbol,
                  bool two_ints) {
  std::string errors;
  for (const char* soname : sonames) {
    void* lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      errors += (errors.empty() ? "" : "; ") + std::string(dlerror());
      continue;
    }
    std::string version;
    if (void* fn = dlsym(lib, version_symbol)) {
      int a = 0, b = 0;
      int status = two_ints ? reinterpret_cast<int (*)(int*, int*)>(fn)(&a, &b)
                            : reinterpret_cast<int (*)(int*)>(fn)(&a);
      if (status == 0)
        version = two_ints ? std::to_string(a) + "." + std::to_string(b)
                           : std::to_string(a / 1000) + "." + std::to_string(a % 1000 / 10);
    }
    return std::string("found ") + soname + (version.empty() ? "" : " (version " + version + ")");
  }
  return "not found: " + errors;
}

}  // namespace

void add_doctor_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("doctor", "Check the installation: plugin directories, CUDA, ABI");
  cmd->callback([] {
    std::cout << "tileops ABI " << abi_text(TILEOPS_ABI_VERSION) << "\n\nplugin directories, in search order:\n";
    for (const auto& dir : plugin_search_path())
      std::cout << "  " << dir << (std::filesystem::is_directory(dir) ? "" : "  (missing)") << "\n";
    auto list = plugins();
    size_t loaded = 0;
    for (const auto& p : list) loaded += p.state == "loaded";
    std::cout << "\nplugins: " << loaded << " loaded, " << load_failures().size()
              << " load failure(s) (see `tileops failures`)\n";
    for (const auto& p : list)
      if (p.state == "loaded")
        std::cout << "  " << p.name << " " << p.version << (p.builtin ? " (built-in)" : "") << "\n";
    std::cout << "\ntargets: " << join(registered_targets()) << "\n";
    std::string driver = probe({"libcuda.so.1"}, "cuDriverGetVersion", false);
    if (driver.rfind("not found", 0) == 0) driver = "no CUDA driver: " + driver.substr(11);
    std::cout << "\nCUDA driver: " << driver << "\n";
    std::cout << "NVRTC:       "
              << probe({"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}, "nvrtcVersion", true)
              << "\n";
  });
}

}  // namespace tileops::cli
