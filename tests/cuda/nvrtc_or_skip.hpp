#pragma once
// For tests that need NVRTC but no GPU (they run in CI): whether NVRTC loads here, and
// where it does not, a doctest message saying the calling test is skipped and why.
#include <doctest/doctest.h>

#include "nvrtc.hpp"

#include <exception>

inline bool nvrtc_or_skip() {
  try {
    tileops::cuda::nvrtc_version();
    return true;
  } catch (const std::exception& e) {
    MESSAGE("SKIPPED: NVRTC is not available here (" << e.what() << ")");
    return false;
  }
}
