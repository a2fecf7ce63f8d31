#pragma once
// Summaries of repeated timings.
#include <vector>

namespace tileops::bench {

struct Spread {
  double median_us = 0;
  double p10_us = 0;
  double p90_us = 0;
  int samples = 0;
};

// Percentiles by linear interpolation between the closest ranks; `us` must not be empty.
Spread spread_of(std::vector<double> us);

}  // namespace tileops::bench
