#include "block_cache.hpp"

#include "driver.hpp"

#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace tileops::cuda {
namespace {

// Size classes: 512-byte steps up to 1 MB, then 1 MB steps; a block wastes less than a
// step.
size_t size_class(size_t bytes) {
  const size_t step = bytes <= (size_t(1) << 20) ? 512 : size_t(1) << 20;
  return (bytes + step - 1) / step * step;
}

using LentMap = std::unordered_map<void*, std::pair<int, size_t>>;

struct Cache {
  std::mutex mutex;
  // Blocks lent by the cache: address -> (device, size class).
  LentMap lent;
  // Nodes of `lent` whose blocks came back, reused by the next loans: a steady state of
  // allocations and frees then touches the heap not at all.
  std::vector<LentMap::node_type> spare_nodes;
  // Kept blocks by (device, stream, size class).
  std::map<std::tuple<int, CUstream, size_t>, std::vector<void*>> kept;
};

Cache& cache() {
  static auto* c = new Cache();  // lives for the process: frees may come during exit
  return *c;
}

// The legacy and per-thread default streams name a stream of whichever context is
// current; a created stream carries its own.
bool is_default_stream(CUstream stream) {
  return stream == nullptr || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD;
}

bool capturing(const DeviceInfo& device, CUstream stream) {
  if (is_default_stream(stream)) make_current(device);
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  // A query that fails (the legacy stream while another captures globally) counts as
  // capturing: the pool is always safe.
  return driver().cuStreamIsCapturing(stream, &status) != CUDA_SUCCESS || status != CU_STREAM_CAPTURE_STATUS_NONE;
}

// Frees the kept blocks of `device`: of every stream, or of `stream` only.
void free_kept(Cache& c, int device, CUstream stream, bool all_streams) {
  const Driver& d = driver();
  for (auto it = c.kept.begin(); it != c.kept.end();) {
    const auto& [dev, s, size] = it->first;
    if (dev == device && (all_streams || s == stream)) {
      for (void* p : it->second) d.cuMemFreeAsync(CUdeviceptr(p), s);
      it = c.kept.erase(it);
    } else {
      ++it;
    }
  }
}

void* pool_alloc(const DeviceInfo& device, size_t bytes, CUstream stream, CUresult& result) {
  make_current(device);
  CUdeviceptr p = 0;
  result = driver().cuMemAllocAsync(&p, bytes, stream);
  return result == CUDA_SUCCESS ? reinterpret_cast<void*>(p) : nullptr;
}

// Built only when an allocation failed: the per-call path builds no strings.
void check_alloc(CUresult r, const DeviceInfo& device, size_t bytes) {
  if (r != CUDA_SUCCESS)
    check(r, "cuMemAllocAsync of " + std::to_string(bytes) + " bytes on cuda:" + std::to_string(device.index));
}

void lend(Cache& c, void* p, int device, size_t size) {
  if (c.spare_nodes.empty()) {
    c.lent.emplace(p, std::make_pair(device, size));
    return;
  }
  LentMap::node_type node = std::move(c.spare_nodes.back());
  c.spare_nodes.pop_back();
  node.key() = p;
  node.mapped() = {device, size};
  c.lent.insert(std::move(node));
}

}  // namespace

void* cache_alloc(const DeviceInfo& device, size_t bytes, CUstream stream) {
  CUresult r = CUDA_SUCCESS;
  if (bytes > kMaxCachedBlock || capturing(device, stream)) {
    void* p = pool_alloc(device, bytes, stream, r);
    check_alloc(r, device, bytes);
    return p;
  }
  Cache& c = cache();
  const size_t size = size_class(bytes);
  std::lock_guard lock(c.mutex);
  auto it = c.kept.find({device.index, stream, size});
  void* p = nullptr;
  if (it != c.kept.end() && !it->second.empty()) {
    p = it->second.back();
    it->second.pop_back();
  } else {
    p = pool_alloc(device, size, stream, r);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {  // give the pool back what this device keeps, once
      free_kept(c, device.index, stream, true);
      p = pool_alloc(device, size, stream, r);
    }
    check_alloc(r, device, size);
  }
  lend(c, p, device.index, size);
  return p;
}

void cache_free(const DeviceInfo& device, void* ptr, CUstream stream) {
  Cache& c = cache();
  {
    std::lock_guard lock(c.mutex);
    auto it = c.lent.find(ptr);
    if (it != c.lent.end()) {
      const size_t size = it->second.second;
      c.spare_nodes.push_back(c.lent.extract(it));
      if (!capturing(device, stream)) {
        c.kept[{device.index, stream, size}].push_back(ptr);
        return;
      }
    }
  }
  make_current(device);
  driver().cuMemFreeAsync(CUdeviceptr(ptr), stream);
}

void cache_release_stream(const DeviceInfo& device, CUstream stream) {
  Cache& c = cache();
  std::lock_guard lock(c.mutex);
  free_kept(c, device.index, stream, false);
}

}  // namespace tileops::cuda
