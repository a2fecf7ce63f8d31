#pragma once
// Small formatting helpers for error messages.
#include <string>
#include <vector>

namespace tileops::detail {

// ['a', 'b'] — how the reference documents print name lists.
inline std::string quoted_list(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", '" : "'") + names[i] + "'";
  return out + "]";
}

inline std::string join(const std::vector<std::string>& names, const char* sep = ", ") {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? sep : "") + names[i];
  return out;
}

}  // namespace tileops::detail
