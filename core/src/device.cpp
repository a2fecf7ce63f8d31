#include <tileops/device.hpp>
#include <tileops/errors.hpp>

#include <charconv>
#include <mutex>
#include <unordered_set>

namespace tileops {
namespace {

struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};

const std::string* intern(std::string_view type) {
  static std::mutex mu;
  // Nodes are stable: the pointers handed out stay valid. Lookups by string_view
  // build no string, so interning a known name allocates nothing.
  static std::unordered_set<std::string, NameHash, std::equal_to<>> names;
  std::lock_guard lock(mu);
  if (auto it = names.find(type); it != names.end()) return &*it;
  return &*names.emplace(type).first;
}

const std::string* cpu_type() {
  static const std::string* cpu = intern("cpu");
  return cpu;
}

}  // namespace

Device::Device() : type_(cpu_type()), index_(-1) {}

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

bool Device::is_cpu() const { return type_ == cpu_type(); }

std::string Device::str() const {
  return index_ < 0 ? *type_ : *type_ + ":" + std::to_string(index_);
}

}  // namespace tileops
