// One op instance called from many threads at once: misses build under the instance's
// lock while hits proceed, and every thread gets correct results; fresh ops settle their
// route while the process default changes; the C API's load records are read while
// another thread records more.
#include <tileops/tileops.h>
#include <tileops/tileops.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using namespace tileops;

TEST_CASE("concurrent calls on one op, across several input signatures") {
  Op op("SoftmaxFwdOp");
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      const int64_t rows = 2 + t % 3, cols = 5 + t % 2;  // six signatures among eight threads
      Tensor x = Tensor::empty({rows, cols}, dtypes::float32);
      for (int64_t i = 0; i < x.numel(); ++i) x.data_ptr<float>()[i] = float((i * 7 + t) % 11) / 3.0f;
      for (int iteration = 0; iteration < 50; ++iteration) {
        Tensor y = op({x})[0];
        for (int64_t r = 0; r < rows; ++r) {
          double sum = 0;
          for (int64_t c = 0; c < cols; ++c) sum += y.data_ptr<float>()[r * cols + c];
          if (std::fabs(sum - 1.0) > 1e-5) ++wrong;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(wrong == 0);
  CHECK(op.target() == "cpu_ref");
}

TEST_CASE("concurrent calls on one composite share its sub-ops") {
  Op mlp("SwiGLUMLPFwdOp");
  Tensor x = Tensor::empty({3, 8}, dtypes::float32), wgu = Tensor::empty({12, 8}, dtypes::float32),
         wd = Tensor::empty({8, 6}, dtypes::float32);
  for (Tensor* t : {&x, &wgu, &wd})
    for (int64_t i = 0; i < t->numel(); ++i) t->data_ptr<float>()[i] = float((i * 5) % 7) / 7.0f - 0.4f;
  const Tensor expected = mlp({x, wgu, wd})[0];
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int iteration = 0; iteration < 20; ++iteration) {
        Tensor y = mlp({x, wgu, wd})[0];
        for (int64_t i = 0; i < y.numel(); ++i)
          if (y.data_ptr<float>()[i] != expected.data_ptr<float>()[i]) ++wrong;
      }
    });
  for (auto& th : threads) th.join();
  CHECK(wrong == 0);
}

TEST_CASE("ops settle their route while another thread changes the default target") {
  std::atomic<bool> stop{false};
  std::thread toggler([&] {
    for (int i = 0; !stop; ++i) set_default_target(i % 2 ? Target("cpu_ref") : std::nullopt);
  });
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      Tensor x = Tensor::empty({2, 3}, dtypes::float32);
      for (int64_t i = 0; i < x.numel(); ++i) x.data_ptr<float>()[i] = float(i) - 2.5f;
      for (int iteration = 0; iteration < 50; ++iteration) {
        Op op("ReluFwdOp");  // a fresh op: its route settles under whatever default is set
        const Tensor y = op({x})[0];
        for (int64_t i = 0; i < y.numel(); ++i)
          if (y.data_ptr<float>()[i] != std::max(x.data_ptr<float>()[i], 0.0f)) ++wrong;
        if (op.target() != "cpu_ref") ++wrong;
      }
    });
  for (auto& th : threads) th.join();
  stop = true;
  toggler.join();
  set_default_target(std::nullopt);
  CHECK(wrong == 0);
}

// The C API keeps copies of the load failures for the C strings it hands out; a failing
// entry loaded on another thread appends to them while readers index them (the TSan
// build is the one that sees a read outside their lock).
TEST_CASE("the C API's load failures and plugins are read while another thread records failures") {
  const auto refuses = [](const tileops_host_api* host, tileops_registrar*, tileops_plugin_info*,
                          tileops_error* err) -> tileops_status {
    host->error_set(err, TILEOPS_ERR_INTERNAL, "fixture: refused");
    return TILEOPS_ERR_INTERNAL;
  };
  constexpr int kRecorded = 40;
  const size_t before = tileops_load_failure_count();
  std::atomic<bool> stop{false};
  std::atomic<int> wrong{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t)
    readers.emplace_back([&] {
      size_t seen = 0;
      while (!stop) {
        const size_t count = tileops_load_failure_count();
        if (count < seen) ++wrong;  // records are only appended
        seen = count;
        for (size_t i = 0; i < count; ++i) {
          const char *path = nullptr, *stage = nullptr, *reason = nullptr;
          if (tileops_load_failure(i, &path, &stage, &reason) != TILEOPS_OK || !path || !stage || !reason) ++wrong;
        }
        for (size_t i = 0, plugins = tileops_plugin_count(); i < plugins; ++i) {
          const char* name = nullptr;
          if (tileops_plugin(i, nullptr, &name, nullptr, nullptr) != TILEOPS_OK || !name) ++wrong;
        }
      }
    });
  for (int i = 0; i < kRecorded; ++i) CHECK_FALSE(load_plugin_entry("capi-refuses-" + std::to_string(i), +refuses));
  stop = true;
  for (auto& th : readers) th.join();
  CHECK(wrong == 0);
  REQUIRE(tileops_load_failure_count() == before + kRecorded);
  const char *path = nullptr, *stage = nullptr, *reason = nullptr;
  REQUIRE(tileops_load_failure(before + kRecorded - 1, &path, &stage, &reason) == TILEOPS_OK);
  CHECK(std::string(path) == "<capi-refuses-" + std::to_string(kRecorded - 1) + ">");
  CHECK(std::string(stage) == "entry");
  CHECK(std::strstr(reason, "fixture: refused") != nullptr);
  CHECK(tileops_load_failure(before + kRecorded, &path, &stage, &reason) == TILEOPS_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tileops_last_error()) ==
        "load failure " + std::to_string(before + kRecorded) + " does not exist; there are " +
            std::to_string(before + kRecorded));
}
