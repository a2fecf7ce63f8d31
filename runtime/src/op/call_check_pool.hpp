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
  PooledCallCheck() : pool_(&pool()) {
    if (pool_->depth == pool_->checks.size()) pool_->checks.push_back(std::make_unique<manifest::CallCheck>());
    check_ = pool_->checks[pool_->depth++].get();
  }
  ~PooledCallCheck() { --pool_->depth; }
  PooledCallCheck(const PooledCallCheck&) = delete;
  PooledCallCheck& operator=(const PooledCallCheck&) = delete;

  manifest::CallCheck& operator*() const { return *check_; }

 private:
  struct Pool {
    std::vector<std::unique_ptr<manifest::CallCheck>> checks;
    size_t depth = 0;
  };
  // One thread-local lookup per call (each costs a __tls_get_addr in a shared library).
  static Pool& pool() {
    static thread_local Pool p;
    return p;
  }
  Pool* pool_;
  manifest::CallCheck* check_;
};

}  // namespace tileops::detail
