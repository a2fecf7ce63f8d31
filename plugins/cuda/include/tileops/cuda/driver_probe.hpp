#pragma once
// Where the CUDA driver and NVRTC are looked for, and a probe that opens them: shared by
// the built-in CUDA plugin (which opens them lazily, at first need) and by whatever
// reports on the installation (`tileops doctor`). Header-only, needs only libdl.
#include <dlfcn.h>

#include <string>

namespace tileops::cuda {

// Tried in order; the first that loads wins.
inline constexpr const char* kDriverSonames[] = {"libcuda.so.1"};
inline constexpr const char* kNvrtcSonames[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};

struct LibraryProbe {
  void* handle = nullptr;  // dlopen handle, never closed; nullptr when none loaded
  std::string soname;      // the one that loaded
  std::string error;       // every dlerror, "; "-separated, when none loaded
};

// Opens the first of `sonames` that loads (RTLD_NOW | RTLD_LOCAL).
template <size_t N>
inline LibraryProbe open_first(const char* const (&sonames)[N]) {
  LibraryProbe probe;
  for (const char* soname : sonames) {
    if (void* handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL)) {
      probe.handle = handle;
      probe.soname = soname;
      probe.error.clear();
      return probe;
    }
    const char* why = dlerror();
    probe.error += (probe.error.empty() ? "" : "; ") + std::string(why ? why : soname);
  }
  return probe;
}

// The reason the plugin gives when the driver is missing (alloc and build fail with it).
inline std::string no_driver_message(const LibraryProbe& probe) {
  return "no CUDA driver: " + probe.error;
}
inline std::string no_nvrtc_message(const LibraryProbe& probe) {
  return "no NVRTC library: " + probe.error;
}

// One line for a report: "found libcuda.so.1 (version 13.0)" or the reason it is not.
inline std::string describe_driver() {
  const LibraryProbe probe = open_first(kDriverSonames);
  if (!probe.handle) return no_driver_message(probe);
  std::string version;
  if (auto* get = reinterpret_cast<int (*)(int*)>(dlsym(probe.handle, "cuDriverGetVersion"))) {
    int v = 0;
    if (get(&v) == 0) version = std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
  }
  return "found " + probe.soname + (version.empty() ? "" : " (version " + version + ")");
}
inline std::string describe_nvrtc() {
  const LibraryProbe probe = open_first(kNvrtcSonames);
  if (!probe.handle) return no_nvrtc_message(probe);
  std::string version;
  if (auto* get = reinterpret_cast<int (*)(int*, int*)>(dlsym(probe.handle, "nvrtcVersion"))) {
    int major = 0, minor = 0;
    if (get(&major, &minor) == 0) version = std::to_string(major) + "." + std::to_string(minor);
  }
  return "found " + probe.soname + (version.empty() ? "" : " (version " + version + ")");
}

}  // namespace tileops::cuda
