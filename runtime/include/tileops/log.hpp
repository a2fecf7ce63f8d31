#pragma once
// Where tileops' log records go: the runtime's warnings (a plugin that failed to load,
// a kernel that cannot be tuned) and every plugin's records (the host API's log). By
// default they are written to stderr from the level TILEOPS_LOG_LEVEL names (trace,
// debug, info, warn, error, off; warn when unset). An application that keeps its own
// log routes them there with set_log_sink.
#include <functional>
#include <string_view>

namespace tileops {

// The ABI's TILEOPS_LOG_* values in order, then `off`, which lets no record through.
enum class LogLevel { trace, debug, info, warn, error, off };

// Receives each record at or above the log level, on the thread that logs it (several
// threads may log at once). A record logged while this thread is inside the sink (the
// sink calls into tileops, which warns) goes to stderr instead of back into the sink. An
// exception a sink throws is written to stderr with the record; it never reaches the
// code that logged.
using LogSink = std::function<void(LogLevel level, std::string_view message)>;

// Replaces the sink; an empty one restores stderr. Once it returns the old sink is not
// called again, so waits for records being delivered to it. Called from within a
// sink, it would wait for itself: it throws ValueError instead.
void set_log_sink(LogSink sink);

// Records below `level` are dropped (it replaces TILEOPS_LOG_LEVEL's choice).
void set_log_level(LogLevel level);
LogLevel log_level();

}  // namespace tileops
