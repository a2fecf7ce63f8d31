/* What the C API test programs share: EXPECT, which returns 1 from the calling function
 * (after printing the condition and the last error) when `cond` does not hold, and the
 * devices and dtypes they use. */
#ifndef TILEOPS_TESTS_CAPI_EXPECT_H
#define TILEOPS_TESTS_CAPI_EXPECT_H

#include <tileops/tileops.h>

#include <stdio.h>

#define EXPECT(cond)                                                          \
  do {                                                                        \
    if (!(cond)) {                                                            \
      fprintf(stderr, "%s:%d: expected %s (last error: %s)\n", __FILE__,      \
              __LINE__, #cond, tileops_last_error());                         \
      return 1;                                                               \
    }                                                                         \
  } while (0)

static const tileops_device kCpu = {"cpu", -1};
static const tileops_dtype kF32 = {TILEOPS_DTYPE_FLOAT, 32, 1};

#endif
