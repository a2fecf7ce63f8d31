#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#if defined(__SANITIZE_THREAD__)
// The TILEOPS_SANITIZE_THREAD build: NVRTC is not built with ThreadSanitizer, and a mutex
// it allocates on one compiling thread and locks on another reaches TSan through its
// pthread interceptors only, without the uninstrumented code that published it: a
// race report that is not ours (test_cuda_nvrtc_variants compiles on two threads).
extern "C" const char* __tsan_default_suppressions() { return "race:libnvrtc.so\n"; }
#endif
