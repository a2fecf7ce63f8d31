#pragma once
// What one call check learns, in slots the loader assigned: index bindings (and who
// bound them, for messages), memoised lets, the inputs as seen, and scratch memory.
// Fixed capacity so that a CallCheck never allocates; the loader rejects a spec that
// needs more slots than these.
#include <tileops/device.hpp>
#include <tileops/manifest/detail/scratch_arena.hpp>
#include <tileops/manifest/detail/value.hpp>

#include <array>
#include <cstdint>
#include <span>

namespace tileops::manifest::detail {

inline constexpr size_t kMaxIndices = 32;
inline constexpr size_t kMaxLets = 32;
inline constexpr size_t kMaxTensors = 16;  // inputs, and separately outputs

struct SeenInput {
  bool present = false;
  DType dtype;
  std::span<const int64_t> shape;  // copied into the arena: valid after the call returns
};

struct CallState {
  uint64_t bound = 0;      // bit i: index i has a value
  uint64_t lets_done = 0;  // bit i: let i is memoised for this call
  std::array<Value, kMaxIndices> indices;
  std::array<int8_t, kMaxIndices> bound_by_input;  // which input bound the index
  std::array<int8_t, kMaxIndices> bound_by_axis;   // at which axis (-1: whole splice or dtype)
  std::array<Value, kMaxLets> lets;
  std::array<SeenInput, kMaxTensors> inputs;
  ScratchArena arena;

  void reset() {
    bound = 0;
    lets_done = 0;
    arena.reset();
  }
  bool is_bound(uint32_t index) const { return bound >> index & 1; }
  bool all_bound(uint64_t mask) const { return (mask & ~bound) == 0; }
};

}  // namespace tileops::manifest::detail
