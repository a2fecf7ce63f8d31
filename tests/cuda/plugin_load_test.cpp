// The built-in CUDA plugin on any machine: it loads beside the runtime without a driver,
// registers the cuda device runtime, facts and a kernel type per op, and reports the
// missing driver when asked for memory. Runs in CI (no GPU).
#include <doctest/doctest.h>

#include "runtime.hpp"

#include <tileops/backend.hpp>
#include <tileops/cuda/driver_probe.hpp>
#include <tileops/sdk/plugin.hpp>
#include <tileops/tensor.hpp>

#include <algorithm>
#include <string>

namespace {

const char* const kKernelTypes[] = {
    "RMSNormFwdOp/cuda_rms_norm",       "FusedAddRMSNormFwdOp/cuda_fused_add_rms_norm",
    "LayerNormFwdOp/cuda_layer_norm",   "GroupNormFwdOp/cuda_group_norm",
    "SoftmaxFwdOp/cuda_softmax",        "LogSoftmaxFwdOp/cuda_log_softmax",
    "SumFwdOp/cuda_sum",                "MeanFwdOp/cuda_mean",
    "AmaxFwdOp/cuda_amax",              "ArgmaxFwdOp/cuda_argmax",
    "CumsumFwdOp/cuda_cumsum",          "ReluFwdOp/cuda_relu",
    "GeluFwdOp/cuda_gelu",              "SiluFwdOp/cuda_silu",
    "SigmoidFwdOp/cuda_sigmoid",        "SiluAndMulFwdOp/cuda_silu_and_mul",
    "GeluAndMulFwdOp/cuda_gelu_and_mul", "AddFwdOp/cuda_add",
    "MulFwdOp/cuda_mul",                "RoPEFwdOp/cuda_rope",
};

bool driver_present() { return tileops::cuda::open_first(tileops::cuda::kDriverSonames).handle != nullptr; }

// A host API whose error sink records the message: enough to call the runtime directly.
std::string g_last_error;
tileops_host_api fake_host() {
  tileops_host_api api{};
  api.struct_size = sizeof api;
  api.abi_major = TILEOPS_ABI_MAJOR;
  api.error_set = [](tileops_error*, tileops_status, const char* message) { g_last_error = message; };
  api.log = [](int32_t, const char*) {};
  return api;
}

}  // namespace

TEST_CASE("the built-in CUDA plugin loads beside the runtime and registers every op") {
  tileops::load_plugins();
  const auto all = tileops::plugins();
  const auto it = std::find_if(all.begin(), all.end(), [](const auto& p) { return p.name == "cuda"; });
  REQUIRE_MESSAGE(it != all.end(), "no plugin named cuda loaded");
  CHECK(it->builtin);
  CHECK(it->state == "loaded");
  CHECK(it->path.find("libtileops_builtin_cuda.so") != std::string::npos);
  CHECK(std::find(it->device_types.begin(), it->device_types.end(), "cuda") != it->device_types.end());
  for (const char* k : kKernelTypes)
    CHECK_MESSAGE(std::find(it->kernel_types.begin(), it->kernel_types.end(), k) != it->kernel_types.end(), k);
  for (const auto& f : tileops::load_failures())
    CHECK_MESSAGE(f.path.find("tileops_builtin_cuda") == std::string::npos, f.stage << ": " << f.reason);
}

TEST_CASE("without a driver, allocation fails naming the missing driver") {
  if (driver_present()) {
    MESSAGE("SKIPPED: a CUDA driver is present here");
    return;
  }
  static const tileops_host_api host = fake_host();
  tileops::sdk::host_slot() = &host;
  const tileops_device_runtime& rt = tileops::cuda::device_runtime();
  CHECK(rt.device_count(rt.user) == 0);
  const tileops_device dev{"cuda", 0};
  void* ptr = reinterpret_cast<void*>(1);
  CHECK(rt.alloc(rt.user, &dev, 64, nullptr, &ptr, nullptr) == TILEOPS_ERR_DEVICE);
  CHECK(ptr == nullptr);
  CHECK(g_last_error.rfind("no CUDA driver: ", 0) == 0);
  CHECK(g_last_error.find("libcuda.so.1") != std::string::npos);
  tileops_device_facts facts{sizeof facts, -1, nullptr, 0, 0};
  CHECK(tileops::cuda::read_device_facts(nullptr, &dev, &facts, nullptr) == TILEOPS_ERR_DEVICE);
  tileops::sdk::host_slot() = nullptr;
  // Through the runtime: a cuda tensor cannot be made.
  CHECK_THROWS(tileops::Tensor::empty({4}, tileops::dtypes::float32, tileops::Device("cuda", 0)));
}
