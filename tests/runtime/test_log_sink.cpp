// An application's log sink (tileops/log.hpp) receives the runtime's warnings (the
// reference's two: a backend that fails to load, a kernel that cannot be tuned) and the
// plugins' records at or above the log level; it can be replaced while threads log,
// and a sink that logs, replaces itself or throws breaks nothing.
#include "host_memory_runtime.hpp"

#include <tileops/backend.hpp>
#include <tileops/errors.hpp>
#include <tileops/log.hpp>
#include <tileops/tileops.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using namespace tileops;

namespace {

const tileops_host_api* g_host = nullptr;

// ReluFwdOp on "logdev" devices, through target 'logtarget', whose kernels do nothing and
// have no request_tune.
tileops_status build_kernel(void*, const char*, const tileops_tensor_spec* const*, size_t, const tileops_param*,
                            size_t, tileops_kernel* out, tileops_error*) {
  out->self = nullptr;
  out->launch = [](void*, const tileops_tensor* const*, size_t, const tileops_tensor* const*, size_t, void*,
                   tileops_error*) -> tileops_status { return TILEOPS_OK; };
  return TILEOPS_OK;
}

tileops_status entry(const tileops_host_api* host, tileops_registrar* reg, tileops_plugin_info* info,
                     tileops_error* err) {
  info->name = "logger";
  g_host = host;
  const auto rt = test::host_memory_runtime();
  const auto detect = [](void*, const tileops_device* d) -> int32_t { return std::strcmp(d->type, "logdev") == 0; };
  if (host->register_device_runtime(reg, "logdev", &rt, err) != TILEOPS_OK ||
      host->register_detector(reg, "logtarget", detect, nullptr, err) != TILEOPS_OK ||
      host->register_kernel_builder(reg, "ReluFwdOp", "logtarget", build_kernel, nullptr, err) != TILEOPS_OK)
    return TILEOPS_ERR_INTERNAL;
  return TILEOPS_OK;
}

bool loaded() {
  static const bool ok = load_plugin_entry("logger", entry);
  return ok;
}

struct Record {
  LogLevel level;
  std::string message;
};

// Collects the records a sink receives; restores stderr and the warn level when the
// case ends.
class Collector {
 public:
  Collector() {
    load_plugins();  // discovery's own records, if any, before this case's
    set_log_level(LogLevel::warn);
    set_log_sink([this](LogLevel level, std::string_view message) {
      std::lock_guard lock(mutex_);
      records_.push_back({level, std::string(message)});
    });
  }
  ~Collector() {
    set_log_sink({});
    set_log_level(LogLevel::warn);
  }
  std::vector<Record> records() {
    std::lock_guard lock(mutex_);
    return records_;
  }
  size_t count(std::string_view message) {
    const auto all = records();
    return size_t(std::count_if(all.begin(), all.end(), [&](const Record& r) { return r.message == message; }));
  }

 private:
  std::mutex mutex_;
  std::vector<Record> records_;
};

void plugin_log(int32_t level, const char* message) { g_host->log(level, message); }

Tensor on_logdev() { return Tensor::empty({2, 4}, dtypes::float32, Device("logdev", 0)); }

}  // namespace

TEST_CASE("a backend that fails to load is a warning naming it, its stage and the reason") {
  Collector sink;
  const auto entry = [](const tileops_host_api* host, tileops_registrar*, tileops_plugin_info*,
                        tileops_error* err) -> tileops_status {
    host->error_set(err, TILEOPS_ERR_INTERNAL, "fixture: refused");
    return TILEOPS_ERR_INTERNAL;
  };
  CHECK_FALSE(load_plugin_entry("log-refuses", +entry));
  const auto failures = load_failures();
  const auto failure = std::find_if(failures.begin(), failures.end(),
                                    [](const LoadFailure& f) { return f.path == "<log-refuses>"; });
  REQUIRE(failure != failures.end());
  CHECK(failure->reason.find("fixture: refused") != std::string::npos);
  const auto records = sink.records();
  REQUIRE(records.size() == 1);
  CHECK(records[0].level == LogLevel::warn);
  CHECK(records[0].message == "plugin <log-refuses> failed at stage 'entry': " + failure->reason);
}

TEST_CASE("an op warns once that a kernel without request_tune runs untuned; another op warns again") {
  REQUIRE(loaded());
  Collector sink;
  const std::string warning = "ReluFwdOp: target 'logtarget' built a kernel without request_tune(); it runs untuned";
  Op relu("ReluFwdOp");
  relu({on_logdev()});
  CHECK(sink.records().empty());
  relu.request_tune();
  relu.request_tune();
  relu({on_logdev()});
  CHECK(sink.count(warning) == 1);
  CHECK(sink.records().size() == 1);
  Op again("ReluFwdOp");
  again.request_tune();  // tuned mode before any build: the kernel is tuned as it is built
  again({on_logdev()});
  CHECK(sink.count(warning) == 2);
}

TEST_CASE("plugins' records reach the sink with their level, from the log level up") {
  REQUIRE(loaded());
  Collector sink;
  plugin_log(TILEOPS_LOG_INFO, "below warn");
  plugin_log(TILEOPS_LOG_ERROR, "an error");
  set_log_level(LogLevel::trace);
  CHECK(log_level() == LogLevel::trace);
  plugin_log(TILEOPS_LOG_DEBUG, "a debug record");
  set_log_level(LogLevel::off);
  CHECK(log_level() == LogLevel::off);
  plugin_log(TILEOPS_LOG_ERROR, "silenced");
  const auto records = sink.records();
  REQUIRE(records.size() == 2);
  CHECK(records[0].level == LogLevel::error);
  CHECK(records[0].message == "an error");
  CHECK(records[1].level == LogLevel::debug);
  CHECK(records[1].message == "a debug record");
}

TEST_CASE("a log level outside trace .. off is a ValueError naming it") {
  CHECK_THROWS_WITH_AS(set_log_level(static_cast<LogLevel>(9)), "log level 9 is not one of 0 (trace) to 5 (off)",
                       ValueError);
  CHECK_THROWS_AS(set_log_level(static_cast<LogLevel>(-1)), ValueError);
}

TEST_CASE("an empty sink restores stderr: the old sink receives nothing more") {
  REQUIRE(loaded());
  int calls = 0;
  Collector restore;
  set_log_sink([&](LogLevel, std::string_view) { ++calls; });
  plugin_log(TILEOPS_LOG_WARN, "one");
  set_log_sink({});
  plugin_log(TILEOPS_LOG_WARN, "to stderr");
  CHECK(calls == 1);
}

TEST_CASE("inside the sink: a record goes to stderr, replacing the sink is a ValueError") {
  REQUIRE(loaded());
  std::vector<std::string> received, refusals;
  Collector restore;  // after what the sink below captures: it is removed first
  set_log_sink([&](LogLevel, std::string_view message) {
    received.emplace_back(message);
    plugin_log(TILEOPS_LOG_WARN, "logged from inside the sink");
    try {
      set_log_sink({});
    } catch (const ValueError& e) {
      refusals.emplace_back(e.what());
    }
  });
  plugin_log(TILEOPS_LOG_WARN, "outer");
  CHECK(received == std::vector<std::string>{"outer"});
  CHECK(refusals ==
        std::vector<std::string>{"tileops::set_log_sink was called from within the log sink: it would wait for itself"});
}

TEST_CASE("a sink that throws: the code that logged goes on, and so does the next record") {
  REQUIRE(loaded());
  int calls = 0;
  Collector restore;
  set_log_sink([&](LogLevel, std::string_view) {
    ++calls;
    throw std::runtime_error("sink failed");
  });
  CHECK_NOTHROW(plugin_log(TILEOPS_LOG_WARN, "first"));
  Op relu("ReluFwdOp");
  relu({on_logdev()});
  CHECK_NOTHROW(relu.request_tune());  // warns through the throwing sink
  CHECK(calls == 2);
  set_log_sink([&](LogLevel, std::string_view) { throw 7; });
  CHECK_NOTHROW(plugin_log(TILEOPS_LOG_WARN, "second"));
}

TEST_CASE("once set_log_sink returns, the old sink gets no record, while other threads log") {
  REQUIRE(loaded());
  constexpr int kSinks = 20;
  std::atomic<int> calls[kSinks] = {};
  Collector restore;
  std::atomic<bool> stop{false};
  const auto install = [&](int k) { set_log_sink([&calls, k](LogLevel, std::string_view) { ++calls[k]; }); };
  install(0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      while (!stop) plugin_log(TILEOPS_LOG_WARN, "busy");
    });
  int at_switch[kSinks] = {};
  for (int k = 0; k < kSinks; ++k) {
    while (calls[k] < 20) std::this_thread::yield();
    if (k + 1 < kSinks) install(k + 1);
    at_switch[k] = calls[k];
  }
  stop = true;
  for (auto& th : threads) th.join();
  for (int k = 0; k + 1 < kSinks; ++k) {
    CAPTURE(k);
    CHECK(calls[k] == at_switch[k]);
  }
}
