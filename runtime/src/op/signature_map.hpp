#pragma once
// A table keyed by call signature: the call device plus (dtype, shape) of each input
// in signature order, an omitted optional input recorded as none.
//
// A lookup hashes the live descriptions and compares them against the stored key
// word by word: no key object is built, nothing is allocated on a hit.
#include <tileops/shape.hpp>

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

template <class Value>
class SignatureMap {
 public:
  Value* find(const Device& device, DescList inputs) {
    auto it = buckets_.find(SignatureKey::hash(device, inputs));
    if (it == buckets_.end()) return nullptr;
    for (auto& [key, value] : it->second)
      if (key.matches(device, inputs)) return &value;
    return nullptr;
  }
  Value& insert(const Device& device, DescList inputs, Value value) {
    auto& bucket = buckets_[SignatureKey::hash(device, inputs)];
    return bucket.emplace_back(SignatureKey(device, inputs), std::move(value)).second;
  }
  void clear() { buckets_.clear(); }
  bool empty() const { return buckets_.empty(); }
  template <class F>
  void for_each(F&& f) {
    for (auto& [hash, bucket] : buckets_)
      for (auto& [key, value] : bucket) f(key, value);
  }

 private:
  std::unordered_map<uint64_t, std::vector<std::pair<SignatureKey, Value>>> buckets_;
};

}  // namespace tileops::detail
