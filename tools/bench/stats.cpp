#include "stats.hpp"

#include <algorithm>
#include <cmath>

namespace tileops::bench {
namespace {

double percentile(const std::vector<double>& sorted, double q) {
  const double rank = q * double(sorted.size() - 1);
  const size_t below = size_t(std::floor(rank));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (sorted[above] - sorted[below]) * (rank - double(below));
}

}  // namespace

Spread spread_of(std::vector<double> us) {
  std::sort(us.begin(), us.end());
  return {percentile(us, 0.5), percentile(us, 0.1), percentile(us, 0.9), int(us.size())};
}

}  // namespace tileops::bench
