#include "timing_loop.hpp"

namespace tileops::bench {

std::vector<std::vector<double>> time_in_turn(RunDevice& device, int warmup, int reps,
                                              std::span<const TimedCall> calls) {
  Timer& timer = device.timer();
  for (int round = 0; round < warmup + reps; ++round)
    for (const TimedCall& call : calls) {
      device.flush_caches();
      std::vector<Tensor> keep;
      TimedScope bracket(timer);
      keep = call(round);
      // ~bracket closes the bracket before ~keep frees the outputs (reverse order).
    }
  const std::vector<double> us = timer.collect();
  std::vector<std::vector<double>> out(calls.size());
  for (size_t i = size_t(warmup) * calls.size(); i < us.size(); ++i) out[i % calls.size()].push_back(us[i]);
  return out;
}

}  // namespace tileops::bench
