#pragma once
// Bump allocator for the values one call check produces (bound shapes, tuples built by
// expressions). A fixed in-object buffer covers every ordinary op, so the hot path
// never touches the heap; an unusual op that needs more spills into heap blocks that
// live until the next reset.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace tileops::manifest::detail {

class ScratchArena {
 public:
  static constexpr size_t kCapacity = 4096;

  ScratchArena() = default;
  ScratchArena(const ScratchArena&) = delete;
  ScratchArena& operator=(const ScratchArena&) = delete;

  void reset() {
    used_ = 0;
    if (!overflow_.empty()) overflow_.clear();
  }

  template <class T>
  std::span<T> allocate(size_t n) {
    static_assert(alignof(T) <= kAlign);
    size_t bytes = (n * sizeof(T) + kAlign - 1) & ~(kAlign - 1);
    if (used_ + bytes <= kCapacity) {
      T* p = reinterpret_cast<T*>(buffer_ + used_);
      used_ += bytes;
      return {p, n};
    }
    overflow_.push_back(std::make_unique<std::byte[]>(bytes ? bytes : kAlign));
    return {reinterpret_cast<T*>(overflow_.back().get()), n};
  }

  template <class T>
  std::span<T> copy(std::span<const T> items) {
    auto out = allocate<T>(items.size());
    for (size_t k = 0; k < items.size(); ++k) out[k] = items[k];
    return out;
  }

 private:
  static constexpr size_t kAlign = 16;
  alignas(kAlign) std::byte buffer_[kCapacity];
  size_t used_ = 0;
  std::vector<std::unique_ptr<std::byte[]>> overflow_;
};

}  // namespace tileops::manifest::detail
