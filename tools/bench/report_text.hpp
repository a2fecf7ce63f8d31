#pragma once
// Number and text formatting shared by the report writers.
#include "results.hpp"

#include <cstdio>
#include <string>

namespace tileops::bench {

// printf-style formatting of one value: text("%.2f", 4.219) == "4.22".
template <class... Args>
std::string text(const char* format, Args... args) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

// Achieved throughput of a timed case.
inline double tbps(const CaseResult& r) { return r.cost.bytes / (r.time->median_us * 1e-6) / 1e12; }
inline double tflops(const CaseResult& r) { return r.cost.flops / (r.time->median_us * 1e-6) / 1e12; }

// "128 MiB", "1.5 GiB".
inline std::string mebibytes(double bytes) {
  return bytes >= double(1ull << 30) ? text("%.3g GiB", bytes / double(1ull << 30)) : text("%.4g MiB", bytes / double(1 << 20));
}

// "memory" or "compute": which term of the floor is larger.
inline std::string bound_name(const Floor& f) { return f.compute_bound ? "compute" : "memory"; }

}  // namespace tileops::bench
