#include "device/current_stream.hpp"
#include "device/device_runtime.hpp"

#include <tileops/stream.hpp>

#include <algorithm>
#include <vector>

namespace tileops {
namespace {

// A handful of devices per thread at most: a flat list beats a map here, and the
// lookup runs on every op call.
struct CurrentStreams {
  std::vector<std::pair<Device, void*>> entries;

  void*& slot(const Device& device) {
    for (auto& [d, s] : entries)
      if (d == device) return s;
    return entries.emplace_back(device, nullptr).second;
  }
};
thread_local CurrentStreams current;

}  // namespace

void* current_stream(const Device& device) {
  for (const auto& [d, s] : current.entries)
    if (d == device) return s;
  return nullptr;
}

void detail::set_current_stream(const Device& device, void* stream) { current.slot(device) = stream; }

StreamGuard::StreamGuard(const Device& device, void* stream)
    : device_(device), previous_(current_stream(device)) {
  detail::set_current_stream(device, stream);
}

StreamGuard::~StreamGuard() { detail::set_current_stream(device_, previous_); }

Stream::Stream(const Device& device)
    : device_(device), handle_(detail::DeviceRuntime::of(device).stream_create(device)) {}

Stream::~Stream() { detail::DeviceRuntime::of(device_).stream_destroy(device_, handle_); }

void Stream::synchronize() const {
  detail::DeviceRuntime::of(device_).synchronize(device_, handle_);
}

void synchronize(const Device& device) {
  detail::DeviceRuntime::of(device).synchronize(device, current_stream(device));
}

}  // namespace tileops
