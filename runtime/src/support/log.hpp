#pragma once
// The `tileops` spdlog logger, which the runtime and the plugins' host API log through;
// its records go where tileops/log.hpp's set_log_sink says (stderr by default), from
// the level TILEOPS_LOG_LEVEL names (trace, debug, info, warn, error, off; default warn).
#include <tileops/log.hpp>

#include <spdlog/logger.h>

namespace tileops::detail {
spdlog::logger& logger();
// spdlog's level for `level`, which also reads the ABI's TILEOPS_LOG_* values (the same
// numbers, trace .. error).
spdlog::level::level_enum spdlog_level(LogLevel level);
}  // namespace tileops::detail
