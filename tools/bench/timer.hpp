#pragma once
// How one benchmark call is timed: the `timing` column names the implementation.
#include <string_view>
#include <vector>

namespace tileops::bench {

// Brackets calls one at a time: begin(), the call, end(). collect() returns what the
// bracketed calls took, so implementations that read device timestamps later (CUDA
// events, CUPTI records) never wait inside the loop.
class Timer {
 public:
  virtual ~Timer() = default;
  // "host", "cuda-events" or "cupti".
  virtual std::string_view name() const = 0;
  virtual void begin() = 0;
  virtual void end() = 0;
  // Microseconds per call bracketed since the last collect, in order; then forgets them.
  virtual std::vector<double> collect() = 0;
};

// begin() and end() as a scope, so that a call that throws still closes its bracket.
class TimedScope {
 public:
  explicit TimedScope(Timer& timer) : timer_(timer) { timer_.begin(); }
  ~TimedScope() { timer_.end(); }
  TimedScope(const TimedScope&) = delete;
  TimedScope& operator=(const TimedScope&) = delete;

 private:
  Timer& timer_;
};

}  // namespace tileops::bench
