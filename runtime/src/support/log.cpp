#include "support/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>

namespace tileops::detail {

spdlog::logger& logger() {
  static std::shared_ptr<spdlog::logger> log = [] {
    auto l = spdlog::get("tileops");
    if (!l) l = spdlog::stderr_color_mt("tileops");
    l->set_pattern("[%n] [%l] %v");
    const char* level = std::getenv("TILEOPS_LOG_LEVEL");
    l->set_level(level ? spdlog::level::from_str(level) : spdlog::level::warn);
    return l;
  }();
  return *log;
}

}  // namespace tileops::detail
