#include <tileops/device.hpp>
#include <tileops/errors.hpp>

#include <charconv>
#include <mutex>
#include <unordered_set>

namespace tileops {
namespace {
const std::string* intern(std::string_view type) {
  static std::mutex mu;
  static std::unordered_set<std::string> names;  // nodes are stable: pointers stay valid
  std::lock_guard lock(mu);
  return &*names.emplace(type).first;
}
const std::string* const kCpu = intern("cpu");
}  // namespace

Device::Device(std::string_view type, int32_t index) : type_(intern(type)), index_(index) {}

Device Device::parse(std::string_view text) {
  auto colon = text.find(':');
  if (colon == std::string_view::npos) {
    if (text.empty()) throw ValueError("a device needs a type, got an empty string");
    return Device(text);
  }
  int32_t index = -1;
  auto digits = text.substr(colon + 1);
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (colon == 0 || ec != std::errc() || end != digits.data() + digits.size() || index < 0)
    throw ValueError("'" + std::string(text) + "' is not a device: expected TYPE or TYPE:INDEX");
  return Device(text.substr(0, colon), index);
}

bool Device::is_cpu() const { return type_ == kCpu; }

std::string Device::str() const {
  return index_ < 0 ? *type_ : *type_ + ":" + std::to_string(index_);
}

}  // namespace tileops
