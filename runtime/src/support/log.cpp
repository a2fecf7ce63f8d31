#include "support/log.hpp"

#include <tileops/errors.hpp>
#include <tileops/log.hpp>

#include <spdlog/sinks/sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <utility>

namespace tileops::detail {
namespace {

// Set while this thread is inside the application's sink.
thread_local bool inside_sink = false;

LogLevel level_of(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace: return LogLevel::trace;
    case spdlog::level::debug: return LogLevel::debug;
    case spdlog::level::info: return LogLevel::info;
    case spdlog::level::warn: return LogLevel::warn;
    case spdlog::level::off: return LogLevel::off;
    default: return LogLevel::error;  // err and critical
  }
}

// The logger's one sink: the application's LogSink when one is set, else stderr. The
// sink is called under a shared lock, so that replacing it waits for its deliveries.
class RoutedSink final : public spdlog::sinks::sink {
 public:
  void log(const spdlog::details::log_msg& msg) override {
    // A record logged from inside the sink skips the lock, which this thread holds: a
    // shared lock taken twice can deadlock behind a waiting replace().
    if (!inside_sink) {
      std::shared_lock lock(mutex_);
      if (sink_) {
        deliver(msg);
        return;
      }
    }
    stderr_->log(msg);
  }
  void flush() override { stderr_->flush(); }
  void set_pattern(const std::string& pattern) override { stderr_->set_pattern(pattern); }
  void set_formatter(std::unique_ptr<spdlog::formatter> formatter) override {
    stderr_->set_formatter(std::move(formatter));
  }

  void replace(LogSink sink) {
    if (inside_sink)
      throw ValueError("tileops::set_log_sink was called from within the log sink: it would wait for itself");
    std::unique_lock lock(mutex_);
    std::swap(sink_, sink);
    lock.unlock();  // the old sink is destroyed outside the lock
  }

 private:
  void deliver(const spdlog::details::log_msg& msg) {
    const std::string_view message(msg.payload.data(), msg.payload.size());
    inside_sink = true;
    try {
      sink_(level_of(msg.level), message);
    } catch (const std::exception& e) {
      report_throw(e.what(), message);
    } catch (...) {
      report_throw("an exception that is not a std::exception", message);
    }
    inside_sink = false;
  }
  static void report_throw(const char* what, std::string_view message) {
    std::fprintf(stderr, "[tileops] the log sink threw (%s) on the record: %.*s\n", what, int(message.size()),
                 message.data());
  }

  std::shared_mutex mutex_;
  LogSink sink_;
  const std::unique_ptr<spdlog::sinks::sink> stderr_ = std::make_unique<spdlog::sinks::stderr_color_sink_mt>();
};

struct Logging {
  std::shared_ptr<RoutedSink> sink = std::make_shared<RoutedSink>();
  // Not in spdlog's registry: an application's own spdlog (perhaps another version)
  // neither sees nor configures it.
  spdlog::logger logger{"tileops", sink};
};

Logging& logging() {
  static auto* l = [] {
    auto* made = new Logging();  // lives for the process: plugins may log during exit
    made->logger.set_pattern("[%n] [%l] %v");
    const char* level = std::getenv("TILEOPS_LOG_LEVEL");
    made->logger.set_level(level ? spdlog::level::from_str(level) : spdlog::level::warn);
    return made;
  }();
  return *l;
}

}  // namespace

spdlog::logger& logger() { return logging().logger; }

spdlog::level::level_enum spdlog_level(LogLevel level) {
  // trace .. error are spdlog's levels' values; off is past its critical.
  return level == LogLevel::off ? spdlog::level::off : static_cast<spdlog::level::level_enum>(level);
}

}  // namespace tileops::detail

namespace tileops {

void set_log_sink(LogSink sink) { detail::logging().sink->replace(std::move(sink)); }

void set_log_level(LogLevel level) {
  const int value = static_cast<int>(level);
  if (value < static_cast<int>(LogLevel::trace) || value > static_cast<int>(LogLevel::off))
    throw ValueError("log level " + std::to_string(value) + " is not one of 0 (trace) to 5 (off)");
  detail::logger().set_level(detail::spdlog_level(level));
}

LogLevel log_level() { return detail::level_of(detail::logger().level()); }

}  // namespace tileops
