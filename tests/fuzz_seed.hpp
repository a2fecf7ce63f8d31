#pragma once
// The seed of the tests that mutate their inputs at random: fixed, so that the default
// run is the same every time, unless TILEOPS_FUZZ_SEED names another (a longer fuzz run:
// `TILEOPS_FUZZ_SEED=$RANDOM ctest -L stress`). Printed, so that a failure can be
// replayed.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>

namespace tileops::testing {

inline uint64_t fuzz_seed() {
  const char* env = std::getenv("TILEOPS_FUZZ_SEED");
  const uint64_t seed = env && *env ? std::strtoull(env, nullptr, 10) : 20261204;
  MESSAGE("seed " << seed << " (TILEOPS_FUZZ_SEED)");
  return seed;
}

}  // namespace tileops::testing
