// A vendor plugin (loaded in process) whose functions let C++ exceptions cross the C
// ABI: a detector, a builder, and kernels whose launch, request_tune or release throws.
// Each fails only what reaches it, with a BackendError or a recorded failure that names
// it; and device runtimes whose alloc, free or copy throws. Beside them, a builder and a
// request_tune that return an error, an entry that throws what is not a std::exception,
// and a device runtime whose alloc reports success without memory.
#include "host_memory_runtime.hpp"

#include <tileops/backend.hpp>
#include <tileops/errors.hpp>
#include <tileops/tileops.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

using namespace tileops;

namespace {

bool is(const tileops_device* d, const char* type) { return std::strcmp(d->type, type) == 0; }

const tileops_host_api* g_host = nullptr;

// SiluFwdOp's kernel throws at launch, ReluFwdOp's at request_tune, SigmoidFwdOp's at
// release, GeluAndMulFwdOp's request_tune fails; otherwise they run and do nothing. The
// builder itself throws for GeluFwdOp and fails for SiluAndMulFwdOp.
tileops_status build_kernel(void*, const char* op, const tileops_tensor_spec* const*, size_t, const tileops_param*,
                            size_t, tileops_kernel* out, tileops_error* err) {
  const std::string name = op;
  if (name == "GeluFwdOp") throw std::runtime_error("fixture: build threw");
  if (name == "SiluAndMulFwdOp") {
    g_host->error_set(err, TILEOPS_ERR_UNSUPPORTED, "fixture: no such kernel");
    return TILEOPS_ERR_UNSUPPORTED;
  }
  out->self = nullptr;
  out->launch = name == "SiluFwdOp" ? [](void*, const tileops_tensor* const*, size_t, const tileops_tensor* const*,
                                         size_t, void*, tileops_error*) -> tileops_status {
    throw std::runtime_error("fixture: launch threw");
  }
                                    : [](void*, const tileops_tensor* const*, size_t, const tileops_tensor* const*,
                                         size_t, void*, tileops_error*) -> tileops_status { return TILEOPS_OK; };
  if (name == "ReluFwdOp")
    out->request_tune = [](void*, const tileops_device*, tileops_error*) -> tileops_status {
      throw std::runtime_error("fixture: tune threw");
    };
  if (name == "SigmoidFwdOp") out->release = [](void*) { throw std::runtime_error("fixture: release threw"); };
  if (name == "GeluAndMulFwdOp")
    out->request_tune = [](void*, const tileops_device*, tileops_error* e) -> tileops_status {
      g_host->error_set(e, TILEOPS_ERR_DEVICE, "fixture: tuner busy");
      return TILEOPS_ERR_DEVICE;
    };
  return TILEOPS_OK;
}

tileops_status entry(const tileops_host_api* host, tileops_registrar* reg, tileops_plugin_info* info,
                     tileops_error* err) {
  info->name = "thrower";
  g_host = host;
  const auto rt = test::host_memory_runtime();
  const auto detect = [](void*, const tileops_device* d) -> int32_t { return is(d, "throwdev"); };
  const auto detect_throws = [](void*, const tileops_device* d) -> int32_t {
    if (is(d, "throwdet")) throw std::runtime_error("fixture: detect threw");
    return 0;
  };
  for (const char* type : {"throwdev", "throwdet"})
    if (host->register_device_runtime(reg, type, &rt, err) != TILEOPS_OK) return TILEOPS_ERR_INTERNAL;
  // Device runtimes one function of which throws.
  auto alloc_throws = rt, free_throws = rt, copy_throws = rt, alloc_null = rt;
  alloc_throws.alloc = [](void*, const tileops_device*, size_t, void*, void**, tileops_error*) -> tileops_status {
    throw std::runtime_error("fixture: alloc threw");
  };
  free_throws.free = [](void*, const tileops_device*, void* p, void*) {
    std::free(p);
    throw std::runtime_error("fixture: free threw");
  };
  copy_throws.copy = [](void*, void*, const tileops_device*, const void*, const tileops_device*, size_t, void*,
                        tileops_error*) -> tileops_status { throw std::runtime_error("fixture: copy threw"); };
  alloc_null.alloc = [](void*, const tileops_device*, size_t, void*, void** out, tileops_error*) -> tileops_status {
    *out = nullptr;
    return TILEOPS_OK;
  };
  if (host->register_device_runtime(reg, "throwalloc", &alloc_throws, err) != TILEOPS_OK ||
      host->register_device_runtime(reg, "nullalloc", &alloc_null, err) != TILEOPS_OK ||
      host->register_device_runtime(reg, "throwfree", &free_throws, err) != TILEOPS_OK ||
      host->register_device_runtime(reg, "throwcopy", &copy_throws, err) != TILEOPS_OK)
    return TILEOPS_ERR_INTERNAL;
  if (host->register_detector(reg, "thrower", detect, nullptr, err) != TILEOPS_OK ||
      host->register_detector(reg, "thrower_detect", detect_throws, nullptr, err) != TILEOPS_OK)
    return TILEOPS_ERR_INTERNAL;
  for (const char* op : {"SiluFwdOp", "ReluFwdOp", "SigmoidFwdOp", "GeluFwdOp", "SiluAndMulFwdOp", "GeluAndMulFwdOp"})
    if (host->register_kernel_builder(reg, op, "thrower", build_kernel, nullptr, err) != TILEOPS_OK)
      return TILEOPS_ERR_INTERNAL;
  return TILEOPS_OK;
}

bool loaded() {
  static const bool ok = load_plugin_entry("thrower", entry);
  return ok;
}

Tensor x_on(const char* device_type) { return Tensor::empty({2, 4}, dtypes::float32, Device(device_type, 0)); }

bool failure_recorded(const std::string& stage, const std::string& reason) {
  const auto failures = load_failures();
  return std::any_of(failures.begin(), failures.end(),
                     [&](const LoadFailure& f) { return f.stage == stage && f.reason.find(reason) != std::string::npos; });
}

}  // namespace

TEST_CASE("a kernel whose launch throws fails that call with a BackendError; the process goes on") {
  REQUIRE(loaded());
  Op silu("SiluFwdOp");
  CHECK_THROWS_WITH_AS(silu({x_on("throwdev")}), doctest::Contains("threw: fixture: launch threw"), BackendError);
  CHECK(failure_recorded("launch", "threw: fixture: launch threw"));
  const size_t recorded = load_failures().size();
  CHECK_THROWS_AS(silu({x_on("throwdev")}), BackendError);
  CHECK(load_failures().size() == recorded);  // the same failure again is recorded once
  Op relu("ReluFwdOp");
  CHECK_NOTHROW(relu({x_on("throwdev")}));
}

TEST_CASE("a kernel whose request_tune throws fails the tuning with a BackendError") {
  REQUIRE(loaded());
  Op relu("ReluFwdOp");
  relu({x_on("throwdev")});
  CHECK_THROWS_WITH_AS(relu.request_tune(),
                       doctest::Contains("request_tune of the kernel for ReluFwdOp threw: fixture: tune threw"),
                       BackendError);
  CHECK(failure_recorded("tune", "request_tune threw: fixture: tune threw"));
}

TEST_CASE("in tuned mode, a kernel whose request_tune throws fails the call that built it, and the op binds to no target") {
  REQUIRE(loaded());
  Op relu("ReluFwdOp");
  relu.request_tune();  // before any build: every kernel built from now on is tuned as it is built
  for (int attempt = 0; attempt < 2; ++attempt) {  // each call builds and tunes anew
    CAPTURE(attempt);
    CHECK_THROWS_WITH_AS(relu({x_on("throwdev")}),
                         doctest::Contains("request_tune of the kernel for ReluFwdOp threw: fixture: tune threw"),
                         BackendError);
    CHECK_FALSE(relu.target().has_value());
  }
}

TEST_CASE("a kernel whose request_tune returns an error fails the tuning with its status's error and message") {
  REQUIRE(loaded());
  Op gated("GeluAndMulFwdOp");
  gated({x_on("throwdev")});
  CHECK_THROWS_WITH_AS(gated.request_tune(),
                       "target 'thrower': tuning the kernel for GeluAndMulFwdOp on throwdev:0 failed: fixture: tuner busy",
                       BackendError);
}

TEST_CASE("a builder that throws fails the call with a BackendError and is recorded; one that fails, with its error") {
  REQUIRE(loaded());
  Op gelu("GeluFwdOp");
  CHECK_THROWS_WITH_AS(gelu({x_on("throwdev")}),
                       "target 'thrower': the builder for GeluFwdOp threw: fixture: build threw", BackendError);
  CHECK(failure_recorded("build", "target 'thrower' threw: fixture: build threw"));
  Op gated("SiluAndMulFwdOp");
  CHECK_THROWS_WITH_AS(gated({x_on("throwdev")}),
                       "target 'thrower' cannot build SiluAndMulFwdOp for throwdev:0: fixture: no such kernel",
                       OpNotAvailableError);
}

TEST_CASE("an entry that throws what is not a std::exception rolls its plugin back, saying so") {
  const auto entry = [](const tileops_host_api*, tileops_registrar*, tileops_plugin_info*,
                        tileops_error*) -> tileops_status { throw 42; };
  CHECK_FALSE(load_plugin_entry("throws-int", +entry));
  const auto failures = load_failures();
  CHECK(std::any_of(failures.begin(), failures.end(), [](const LoadFailure& f) {
    return f.path == "<throws-int>" && f.stage == "entry" &&
           f.reason == "entry threw an exception that is not a std::exception";
  }));
}

TEST_CASE("a kernel whose release throws is recorded when the op lets it go") {
  REQUIRE(loaded());
  {
    Op sigmoid("SigmoidFwdOp");
    sigmoid({x_on("throwdev")});
  }
  CHECK(failure_recorded("release", "release threw: fixture: release threw"));
}

TEST_CASE("a detector that throws is recorded and claims nothing") {
  REQUIRE(loaded());
  Op silu("SiluFwdOp");
  CHECK_THROWS_AS(silu({x_on("throwdet")}), OpNotAvailableError);  // no other target serves throwdet
  CHECK(failure_recorded("detect",
                         "the detector of target 'thrower_detect' threw for throwdet:0: fixture: detect threw"));
}

TEST_CASE("a device runtime whose alloc or copy throws fails that call with a BackendError; a throwing free is recorded") {
  REQUIRE(loaded());
  CHECK_THROWS_WITH_AS(x_on("throwalloc"), "allocating 32 bytes on throwalloc:0 threw: fixture: alloc threw",
                       BackendError);
  CHECK_THROWS_WITH_AS(Tensor::empty({2, 4}, dtypes::float32).to(Device("throwcopy", 0)),
                       "copying 32 bytes from cpu on throwcopy:0 threw: fixture: copy threw", BackendError);
  // A kernel would write through NULL: the allocation fails instead.
  CHECK_THROWS_WITH_AS(x_on("nullalloc"),
                       "allocating 32 bytes on nullalloc:0 returned NULL without an error (a defect of the device "
                       "runtime of 'nullalloc')",
                       BackendError);
  CHECK(Tensor::empty({0, 4}, dtypes::float32, Device("nullalloc", 0)).numel() == 0);  // nothing asked, none needed
  { Tensor t = x_on("throwfree"); }  // its release frees through the runtime
  CHECK(failure_recorded("free",
                         "the device runtime of 'throwfree' threw in free on throwfree:0: fixture: free threw"));
}
