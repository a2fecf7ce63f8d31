#pragma once
// Progress of a long run on stderr: a bar redrawn in place on a terminal, one line per
// case otherwise, with the seconds elapsed (a log then shows where time went).
#include <chrono>
#include <cstddef>
#include <string>

namespace tileops::bench {

class ProgressBar {
 public:
  ProgressBar();
  ~ProgressBar();  // clears the bar's line
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  void update(size_t done, size_t total, const std::string& what);

 private:
  bool terminal_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace tileops::bench
