#pragma once
// The `tileops` spdlog logger; level from TILEOPS_LOG_LEVEL (trace, debug, info,
// warn, error, off; default warn).
#include <spdlog/logger.h>

namespace tileops::detail {
spdlog::logger& logger();
}  // namespace tileops::detail
