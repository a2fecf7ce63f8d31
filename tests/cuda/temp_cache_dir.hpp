#pragma once
// A fresh cubin cache directory for a test or benchmark: TILEOPS_CACHE_DIR points at it
// while the object lives; then the caller's setting comes back and the directory goes.
#include <tileops/cuda/cubin_cache.hpp>

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

namespace tileops::cuda::test {

class TempCacheDir {
 public:
  TempCacheDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "tileops-cuda-cache-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot make a directory like " + tmpl);
    path_ = tmpl;
    if (const char* old = std::getenv("TILEOPS_CACHE_DIR")) previous_ = old;
    setenv("TILEOPS_CACHE_DIR", path_.c_str(), 1);
  }
  ~TempCacheDir() {
    if (previous_)
      setenv("TILEOPS_CACHE_DIR", previous_->c_str(), 1);
    else
      unsetenv("TILEOPS_CACHE_DIR");
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempCacheDir(const TempCacheDir&) = delete;
  TempCacheDir& operator=(const TempCacheDir&) = delete;

  // Where the CUDA plugin's entries go inside it.
  std::string cuda_dir() const { return cache::cuda_dir(path_.string()); }

 private:
  std::filesystem::path path_;
  std::optional<std::string> previous_;
};

}  // namespace tileops::cuda::test
