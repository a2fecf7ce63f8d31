#pragma once
// A table keyed by call signature: the call device plus (dtype, shape) of each input
// in signature order, an omitted optional input recorded as none.
//
// A lookup hashes the live descriptions and compares them against the stored key
// word by word: no key object is built, nothing is allocated on a hit.
#include <tileops/shape.hpp>

#include <atomic>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tileops::detail {

using DescList = std::span<const TensorDesc* const>;

class SignatureKey {
 public:
  SignatureKey(const Device& device, DescList inputs);

  static uint64_t hash(const Device& device, DescList inputs);
  bool matches(const Device& device, DescList inputs) const;
  const Device& device() const { return device_; }

 private:
  static constexpr int64_t kAbsent = -1;
  Device device_;
  std::vector<int64_t> words_;  // per input: packed dtype (or kAbsent), ndim, dims...
};

// Lookups may run concurrently with each other (the owner's reader lock); insert and
// clear run alone (its writer lock).
template <class Value>
class SignatureMap {
 public:
  Value* find(const Device& device, DescList inputs) {
    // Calls mostly repeat the last signature: one comparison, no hash.
    if (Entry* e = last_.load(std::memory_order_relaxed); e && e->first.matches(device, inputs)) return &e->second;
    auto it = buckets_.find(SignatureKey::hash(device, inputs));
    if (it == buckets_.end()) return nullptr;
    for (auto& entry : it->second)
      if (entry.first.matches(device, inputs)) {
        last_.store(&entry, std::memory_order_relaxed);
        return &entry.second;
      }
    return nullptr;
  }
  Value& insert(const Device& device, DescList inputs, Value value) {
    last_.store(nullptr, std::memory_order_relaxed);  // the bucket may move its entries
    auto& bucket = buckets_[SignatureKey::hash(device, inputs)];
    return bucket.emplace_back(SignatureKey(device, inputs), std::move(value)).second;
  }
  void clear() {
    last_.store(nullptr, std::memory_order_relaxed);
    buckets_.clear();
  }
  bool empty() const { return buckets_.empty(); }
  template <class F>
  void for_each(F&& f) {
    for (auto& [hash, bucket] : buckets_)
      for (auto& [key, value] : bucket) f(key, value);
  }

 private:
  using Entry = std::pair<SignatureKey, Value>;
  std::unordered_map<uint64_t, std::vector<Entry>> buckets_;
  std::atomic<Entry*> last_{nullptr};  // the entry the last hit found
};

}  // namespace tileops::detail
