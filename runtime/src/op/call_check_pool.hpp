#pragma once
// A CallCheck per call depth and thread, reused from call to call: building one
// afresh costs as much as the check itself. Depth matters because a composite's
// sub-op calls run while the composite's own check is still in use.
#include <tileops/manifest.hpp>

#include <memory>
#include <vector>

namespace tileops::detail {

class PooledCallCheck {
 public:
  PooledCallCheck() {
    if (depth_ == pool_.size()) pool_.push_back(std::make_unique<manifest::CallCheck>());
    check_ = pool_[depth_++].get();
  }
  ~PooledCallCheck() { --depth_; }
  PooledCallCheck(const PooledCallCheck&) = delete;
  PooledCallCheck& operator=(const PooledCallCheck&) = delete;

  manifest::CallCheck& operator*() const { return *check_; }

 private:
  static thread_local std::vector<std::unique_ptr<manifest::CallCheck>> pool_;
  static thread_local size_t depth_;
  manifest::CallCheck* check_;
};

inline thread_local std::vector<std::unique_ptr<manifest::CallCheck>> PooledCallCheck::pool_;
inline thread_local size_t PooledCallCheck::depth_ = 0;

}  // namespace tileops::detail
