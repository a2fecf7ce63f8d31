#include "op/signature_map.hpp"

namespace tileops::detail {
namespace {
inline uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}
}  // namespace

SignatureKey::SignatureKey(const Device& device, DescList inputs) : device_(device) {
  for (const TensorDesc* d : inputs) {
    if (!d) {
      words_.push_back(kAbsent);
      continue;
    }
    words_.push_back(int64_t(d->dtype.packed()));
    words_.push_back(int64_t(d->shape.size()));
    words_.insert(words_.end(), d->shape.begin(), d->shape.end());
  }
}

uint64_t SignatureKey::hash(const Device& device, DescList inputs) {
  uint64_t h = device.hash();
  for (const TensorDesc* d : inputs) {
    if (!d) {
      h = mix(h, uint64_t(kAbsent));
      continue;
    }
    h = mix(h, d->dtype.packed());
    h = mix(h, d->shape.size());
    for (int64_t dim : d->shape) h = mix(h, uint64_t(dim));
  }
  return h;
}

bool SignatureKey::matches(const Device& device, DescList inputs) const {
  if (!(device == device_)) return false;
  size_t w = 0;
  for (const TensorDesc* d : inputs) {
    if (!d) {
      if (w >= words_.size() || words_[w++] != kAbsent) return false;
      continue;
    }
    if (w + 2 + d->shape.size() > words_.size()) return false;
    if (words_[w++] != int64_t(d->dtype.packed())) return false;
    if (words_[w++] != int64_t(d->shape.size())) return false;
    for (int64_t dim : d->shape)
      if (words_[w++] != dim) return false;
  }
  return w == words_.size();
}

}  // namespace tileops::detail
