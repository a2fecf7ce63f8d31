#pragma once
// The device runtime's caching allocator: blocks freed on a stream are kept, by rounded
// size, and handed back to the next allocation of that size on the same stream. Stream
// order makes the reuse safe exactly as it makes cuMemFreeAsync's reuse safe: whatever
// used the block was queued on that stream before the free, so it runs before anything
// queued after the next allocation. A hit costs a lock and two table lookups instead of
// cuMemAllocAsync + cuMemFreeAsync (about 3 us per op call on an H200 host).
//
// Bypassed (straight to the stream-ordered pool) for blocks over kMaxCachedBlock, and
// while the stream is being captured into a CUDA graph (the graph owns its allocations,
// and a block the cache lent to a graph must never return to eager use). Kept blocks
// go back to the pool when an allocation runs out of memory (then it is retried once)
// and when their stream is destroyed.
//
// The cache makes the device's context current only before a driver call that reads
// it: an allocation or free through the pool, or a capture query on a default stream.
// A hit on a created stream, and its release, need none: a memo-hit op call there makes
// one context query, its launch's.
#include "devices.hpp"

#include <cuda.h>

#include <cstddef>

namespace tileops::cuda {

inline constexpr size_t kMaxCachedBlock = size_t(64) << 20;

// A block of at least `bytes` (> 0) on `device` for use on `stream`; throws sdk::Failure.
void* cache_alloc(const DeviceInfo& device, size_t bytes, CUstream stream);
// Returns `ptr` (from cache_alloc) on `stream`: kept for reuse there, or freed.
void cache_free(const DeviceInfo& device, void* ptr, CUstream stream);
// Frees the blocks kept for `stream` (before the stream is destroyed).
void cache_release_stream(const DeviceInfo& device, CUstream stream);

}  // namespace tileops::cuda
