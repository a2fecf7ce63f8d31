#pragma once
// The timed loop shared by the case loop and calibration: rounds of calls made in
// turn, each after a cache flush and inside its own timer bracket.
#include "run_device.hpp"

#include <tileops/tensor.hpp>

#include <functional>
#include <span>
#include <vector>

namespace tileops::bench {

// One call in round `round`. It returns what must outlive the bracket (its outputs), so
// that freeing them is not timed.
using TimedCall = std::function<std::vector<Tensor>(int round)>;

// warmup + reps rounds of every call in turn (interleaved: they share clocks and heat);
// the timings of each call after the warm-up rounds, in microseconds.
std::vector<std::vector<double>> time_in_turn(RunDevice& device, int warmup, int reps,
                                              std::span<const TimedCall> calls);

}  // namespace tileops::bench
