#include "log.hpp"

#include <tileops/sdk/plugin.hpp>

#include <cstdio>

namespace tileops::cuda {

void log(int32_t level, const std::string& message) {
  if (sdk::host_slot()) {
    sdk::log(level, message);
  } else if (level >= TILEOPS_LOG_WARN) {
    std::fprintf(stderr, "tileops cuda: %s\n", message.c_str());
  }
}

}  // namespace tileops::cuda
