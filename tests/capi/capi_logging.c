/* A C99 application that routes tileops' log records into its own log: the warning for
 * each plugin that fails to load (the zoo's broken fixtures) reaches its sink, which asks
 * for the failures while the plugins load (each warning's failure is already listed), and
 * the log level is set and refused through the C API. */
#include "expect.h"

#include <tileops/tileops.h>

#include <stdio.h>
#include <string.h>

struct Log {
  int warnings;
  int other;
  int miscounted; /* warnings that did not find their failure listed */
  char first[1024];
};

static void collect(void* user, int32_t level, const char* message) {
  struct Log* log = (struct Log*)user;
  if (level != TILEOPS_LOG_WARN) {
    ++log->other;
    return;
  }
  if (log->warnings++ == 0) snprintf(log->first, sizeof log->first, "%s", message);
  if ((int)tileops_load_failure_count() != log->warnings) ++log->miscounted;
}

static int load_failures_logged(void) {
  struct Log log = {0, 0, 0, ""};
  char expected[1024];
  const char *path, *stage, *reason;

  EXPECT(tileops_log_level() == TILEOPS_LOG_WARN); /* TILEOPS_LOG_LEVEL unset */
  EXPECT(tileops_set_log_sink(collect, &log) == TILEOPS_OK);
  EXPECT(tileops_load_plugins() == TILEOPS_OK);
  EXPECT(tileops_set_log_sink(NULL, NULL) == TILEOPS_OK);
  EXPECT(tileops_load_failure_count() > 0);
  EXPECT(log.warnings == (int)tileops_load_failure_count());
  EXPECT(log.other == 0);
  EXPECT(log.miscounted == 0);
  EXPECT(tileops_load_failure(0, &path, &stage, &reason) == TILEOPS_OK);
  snprintf(expected, sizeof expected, "plugin %s failed at stage '%s': %s", path, stage, reason);
  EXPECT(strcmp(log.first, expected) == 0);
  return 0;
}

static int levels(void) {
  EXPECT(tileops_set_log_level(TILEOPS_LOG_OFF) == TILEOPS_OK);
  EXPECT(tileops_log_level() == TILEOPS_LOG_OFF);
  EXPECT(tileops_set_log_level(TILEOPS_LOG_DEBUG) == TILEOPS_OK);
  EXPECT(tileops_log_level() == TILEOPS_LOG_DEBUG);
  EXPECT(tileops_set_log_level(9) == TILEOPS_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tileops_last_error(), "log level 9 is not one of 0 (trace) to 5 (off)") == 0);
  EXPECT(strcmp(tileops_last_error_kind(), "ValueError") == 0);
  EXPECT(tileops_log_level() == TILEOPS_LOG_DEBUG);
  return 0;
}

int main(void) {
  if (load_failures_logged() != 0) return 1;
  if (levels() != 0) return 1;
  puts("C API logging: all expectations met");
  return 0;
}
