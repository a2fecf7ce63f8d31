#pragma once
// Work prepared ahead of its consumer on background threads: make(i) for i in [0, n),
// at most `width` items ahead of the one take() waits for. The runner computes cpu_ref
// references this way while the device times earlier cases.
#include <algorithm>
#include <cstddef>
#include <functional>
#include <future>
#include <vector>

namespace tileops::bench {

template <class T>
class Lookahead {
 public:
  Lookahead(size_t n, size_t width, std::function<T(size_t)> make)
      : make_(std::move(make)), futures_(n), width_(width == 0 ? 1 : width) {
    for (size_t i = 0; i < std::min(width_, n); ++i) start(i);
  }

  // The item i (taken in increasing order); rethrows what make(i) threw.
  T take(size_t i) {
    if (i + width_ < futures_.size()) start(i + width_);
    return futures_[i].get();
  }

 private:
  void start(size_t i) { futures_[i] = std::async(std::launch::async, make_, i); }

  std::function<T(size_t)> make_;
  std::vector<std::future<T>> futures_;
  size_t width_;
};

}  // namespace tileops::bench
