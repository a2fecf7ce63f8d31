// One op instance called from many threads at once: misses build under the instance's
// lock while hits proceed, and every thread gets correct results; fresh ops settle their
// route while the process default changes.
#include <tileops/tileops.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
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
