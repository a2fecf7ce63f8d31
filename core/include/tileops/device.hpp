#pragma once
// tileops::Device: a device type name (never parsed by the host) and an index.
//
// Type names are interned once, so copying and comparing devices on the call path
// is a pointer and an integer.
#include <tileops/abi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace tileops {

class Device {
 public:
  Device();  // the CPU
  explicit Device(std::string_view type, int32_t index = -1);
  // "cuda:1", "cpu", "acme:0".
  static Device parse(std::string_view text);
  static Device cpu() { return Device(); }

  std::string_view type() const { return *type_; }
  const char* type_c_str() const { return type_->c_str(); }
  int32_t index() const { return index_; }
  bool is_cpu() const;
  std::string str() const;
  tileops_device to_c() const { return {type_->c_str(), index_}; }
  static Device from_c(const tileops_device& d) { return Device(d.type, d.index); }

  bool operator==(const Device& o) const { return type_ == o.type_ && index_ == o.index_; }
  // An arbitrary but stable order, for ordered containers.
  bool operator<(const Device& o) const {
    return type_ != o.type_ ? std::less<const void*>()(type_, o.type_) : index_ < o.index_;
  }
  bool same_type(const Device& o) const { return type_ == o.type_; }
  // Identifies the type name: equal for equal names, stable for the process.
  const void* type_id() const { return type_; }
  size_t hash() const { return std::hash<const void*>()(type_) * 31 + size_t(index_ + 1); }

 private:
  const std::string* type_;  // interned, lives for the process
  int32_t index_;
};

}  // namespace tileops

template <>
struct std::hash<tileops::Device> {
  size_t operator()(const tileops::Device& d) const { return d.hash(); }
};
