// The runtime's first use from many threads at once: plugin discovery runs once, and no
// thread sees it half done, whether it asks for the plugins, the load failures or the
// targets, builds and calls an op, or registers an in-process entry meanwhile. A binary
// of its own, so that nothing has loaded the plugins before the threads start. Run with
// TILEOPS_PLUGIN_PATH=<zoo>:<vendor> (failures to record, a vendor plugin to load).
#include <tileops/tileops.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <latch>
#include <string>
#include <thread>
#include <vector>

using namespace tileops;

namespace {

// An in-process entry registering target "racer<N>" (a detector that matches nothing).
template <int N>
tileops_status racer_entry(const tileops_host_api* host, tileops_registrar* reg, tileops_plugin_info* info,
                           tileops_error* err) {
  static const std::string name = "racer" + std::to_string(N);
  info->name = name.c_str();
  return host->register_detector(reg, name.c_str(), [](void*, const tileops_device*) -> int32_t { return 0; },
                                 nullptr, err);
}
constexpr tileops_plugin_entry_fn kRacers[] = {racer_entry<0>, racer_entry<1>, racer_entry<2>, racer_entry<3>};

bool in_process(const std::string& path) { return !path.empty() && path.front() == '<'; }

// The plugin files' paths and states, and the files' load failures: what discovery
// decides (in-process entries race with it, so they are left out).
std::vector<std::string> discovered() {
  std::vector<std::string> out;
  for (const auto& p : plugins())
    if (!in_process(p.path)) out.push_back(p.path + " " + p.state);
  for (const auto& f : load_failures())
    if (!in_process(f.path)) out.push_back(f.path + " failed at " + f.stage + ": " + f.reason);
  std::sort(out.begin(), out.end());
  return out;
}

// Softmax of a 3x4 float32 tensor on cpu_ref (the zoo's `greedy` also claims the CPU);
// true when every row sums to 1.
bool softmax_rows_sum_to_one() {
  Op op("SoftmaxFwdOp", {}, "cpu_ref");
  Tensor x = Tensor::empty({3, 4}, dtypes::float32);
  for (int64_t i = 0; i < x.numel(); ++i) x.data_ptr<float>()[i] = float(i % 5) - 2.0f;
  const Tensor y = op({x})[0];
  for (int64_t r = 0; r < 3; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < 4; ++c) sum += y.data_ptr<float>()[r * 4 + c];
    if (std::fabs(sum - 1.0) > 1e-5) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("threads that all start the runtime at once see discovery whole, and it runs once") {
  constexpr int kThreads = 8;
  std::latch start(kThreads);
  std::vector<std::vector<std::string>> seen(kThreads);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      try {
        switch (t % 4) {
          case 0: break;  // asks first for the plugins and failures (below)
          case 1: registered_targets(); break;
          case 2:
            if (!softmax_rows_sum_to_one()) errors[t] = "softmax rows do not sum to 1";
            break;
          case 3:
            if (!load_plugin_entry("racer" + std::to_string(t / 4), kRacers[t / 4]))
              errors[t] = "in-process entry refused";
            break;
        }
        seen[t] = discovered();
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    CAPTURE(t);
    CHECK(errors[t] == "");
  }
  const std::vector<std::string> now = discovered();
  // The vendor plugin loaded and the zoo's broken fixtures failed, each recorded once.
  CHECK(std::count_if(now.begin(), now.end(), [](const std::string& s) { return s.find("acme") != s.npos; }) >= 1);
  CHECK(std::count_if(now.begin(), now.end(), [](const std::string& s) { return s.find(" failed at ") != s.npos; }) >= 10);
  CHECK(std::adjacent_find(now.begin(), now.end()) == now.end());
  for (int t = 0; t < kThreads; ++t) {
    CAPTURE(t);
    CHECK(seen[t] == now);
  }
  const auto targets = registered_targets();
  for (int n = 0; n < kThreads / 4; ++n)
    CHECK(std::find(targets.begin(), targets.end(), "racer" + std::to_string(n)) != targets.end());
}
