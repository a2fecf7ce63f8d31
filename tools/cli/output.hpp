#pragma once
// Shared text helpers of the CLI.
#include <tileops/version.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tileops::cli {

inline std::string join(const std::vector<std::string>& items, const char* sep = ", ") {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

// "1.0" from the (major << 16 | minor) word.
inline std::string abi_text(uint32_t version) {
  return std::to_string(version >> 16) + "." + std::to_string(version & 0xffff);
}

// "tileops 0.1.0 (plugin ABI 1.0)": the runtime this process runs.
inline std::string version_text() {
  return std::string("tileops ") + version_string() + " (plugin ABI " + abi_text(abi_version()) + ")";
}

}  // namespace tileops::cli
