#include "cupti_timer.hpp"

#include "cuda_driver.hpp"

#include <tileops/errors.hpp>

#include <cupti_activity.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace tileops::bench {
namespace {

#define TILEOPS_BENCH_CUPTI_FUNCTIONS(X)      \
  X(cuptiActivityRegisterCallbacks)           \
  X(cuptiActivityEnable)                      \
  X(cuptiActivityDisable)                     \
  X(cuptiActivityFlushAll)                    \
  X(cuptiActivityGetNextRecord)               \
  X(cuptiActivityPushExternalCorrelationId)   \
  X(cuptiActivityPopExternalCorrelationId)    \
  X(cuptiGetResultString)

struct CuptiApi {
#define TILEOPS_BENCH_CUPTI_MEMBER(name) decltype(&::name) name = nullptr;
  TILEOPS_BENCH_CUPTI_FUNCTIONS(TILEOPS_BENCH_CUPTI_MEMBER)
#undef TILEOPS_BENCH_CUPTI_MEMBER

  void check(CUptiResult result, std::string_view what) const {
    if (result == CUPTI_SUCCESS) return;
    const char* text = nullptr;
    cuptiGetResultString(result, &text);
    throw BackendError("CUPTI: " + std::string(what) + " failed: " +
                       (text ? text : "CUptiResult " + std::to_string(int(result))));
  }
};

// The toolkit's CUPTI sits outside the loader's default path on most installations.
constexpr const char* kCuptiLibraries[] = {
    "libcupti.so.13", "libcupti.so.12", "libcupti.so",
    "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13", "/usr/local/cuda/lib64/libcupti.so.13",
    "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.12", "/usr/local/cuda/lib64/libcupti.so.12"};

struct LoadedCupti {
  CuptiApi api;
  std::string failure;
};

LoadedCupti load_cupti() {
  LoadedCupti out;
  void* handle = nullptr;
  std::string tried;
  for (const char* name : kCuptiLibraries) {
    if ((handle = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    const char* why = dlerror();
    tried += (tried.empty() ? "" : "; ") + std::string(why ? why : name);
  }
  if (!handle) {
    out.failure = "no CUPTI library: " + tried;
    return out;
  }
#define TILEOPS_BENCH_CUPTI_RESOLVE(name)                                                   \
  out.api.name = reinterpret_cast<decltype(&::name)>(dlsym(handle, #name));                 \
  if (!out.api.name && out.failure.empty()) out.failure = "the CUPTI library lacks " #name;
  TILEOPS_BENCH_CUPTI_FUNCTIONS(TILEOPS_BENCH_CUPTI_RESOLVE)
#undef TILEOPS_BENCH_CUPTI_RESOLVE
  return out;
}

const CuptiApi& cupti() {
  static const LoadedCupti loaded = load_cupti();
  if (!loaded.failure.empty()) throw BackendError(loaded.failure);
  return loaded.api;
}

constexpr auto kExternalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
// Device work a call can launch, and the API records our external ids attach to.
constexpr CUpti_ActivityKind kKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};

struct DeviceActivity {
  uint32_t correlation_id;
  uint64_t start_ns, end_ns;
};

// What the buffer callbacks (on CUPTI's thread) hand to collect().
struct Records {
  std::mutex mutex;
  std::unordered_map<uint32_t, uint64_t> external_id;  // API correlation id -> our id
  std::vector<DeviceActivity> activities;
};

Records& records() {
  static Records r;
  return r;
}

constexpr size_t kBufferBytes = size_t(8) << 20;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid_size) {
  Records& r = records();
  std::lock_guard lock(r.mutex);
  CUpti_Activity* record = nullptr;
  // Only the leading fields are read, and CUPTI only ever appends fields to a record,
  // so a newer libcupti than these headers still reads right.
  while (cupti().cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
        if (e->externalKind == kExternalKind) r.external_id[e->correlationId] = e->externalId;
        break;
      }
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      case CUPTI_ACTIVITY_KIND_KERNEL: {
        auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        r.activities.push_back({k->correlationId, k->start, k->end});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        r.activities.push_back({m->correlationId, m->start, m->end});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        r.activities.push_back({m->correlationId, m->start, m->end});
        break;
      }
      default:
        break;  // API records: only their external correlation matters
    }
  }
  std::free(buffer);
}

}  // namespace

CuptiTimer::CuptiTimer(CUstream stream) : stream_(stream) {
  const CuptiApi& api = cupti();
  static std::once_flag registered;  // CUPTI takes one pair of callbacks per process
  std::call_once(registered, [&] {
    api.check(api.cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "cuptiActivityRegisterCallbacks");
  });
  for (CUpti_ActivityKind kind : kKinds) api.check(api.cuptiActivityEnable(kind), "cuptiActivityEnable");
}

CuptiTimer::~CuptiTimer() {
  const CuptiApi& api = cupti();
  api.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  for (CUpti_ActivityKind kind : kKinds) api.cuptiActivityDisable(kind);
  Records& r = records();
  std::lock_guard lock(r.mutex);
  r.external_id.clear();
  r.activities.clear();
}

void CuptiTimer::begin() {
  static std::atomic<uint64_t> last_id{0};  // process-wide: two timers never share an id
  ids_.push_back(++last_id);
  cupti().check(cupti().cuptiActivityPushExternalCorrelationId(kExternalKind, ids_.back()), "pushing an external id");
}

void CuptiTimer::end() {
  uint64_t popped = 0;
  cupti().check(cupti().cuptiActivityPopExternalCorrelationId(kExternalKind, &popped), "popping an external id");
}

std::vector<double> CuptiTimer::collect() {
  const CudaDriver& d = cuda_driver();
  d.check(d.cuStreamSynchronize(stream_), "cuStreamSynchronize");  // every record is final
  cupti().check(cupti().cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");

  std::unordered_map<uint64_t, size_t> call_of;
  for (size_t i = 0; i < ids_.size(); ++i) call_of[ids_[i]] = i;
  constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();
  std::vector<std::pair<uint64_t, uint64_t>> spans(ids_.size(), {kNone, 0});  // first start, last end
  {
    Records& r = records();
    std::lock_guard lock(r.mutex);
    for (const DeviceActivity& a : r.activities) {
      auto external = r.external_id.find(a.correlation_id);
      if (external == r.external_id.end()) continue;  // the L2 flush, or another timer's work
      auto call = call_of.find(external->second);
      if (call == call_of.end()) continue;
      auto& [start, end] = spans[call->second];
      start = std::min(start, a.start_ns);
      end = std::max(end, a.end_ns);
    }
    r.external_id.clear();
    r.activities.clear();
  }
  const size_t calls = ids_.size();
  ids_.clear();
  std::vector<double> out;
  for (size_t i = 0; i < calls; ++i) {
    if (spans[i].first == kNone)
      throw BackendError("CUPTI recorded no kernel, memset or memcpy for timed call " + std::to_string(i + 1) +
                         " of " + std::to_string(calls));
    out.push_back(double(spans[i].second - spans[i].first) * 1e-3);
  }
  return out;
}

}  // namespace tileops::bench
