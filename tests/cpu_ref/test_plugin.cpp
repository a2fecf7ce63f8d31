// The built plugin, loaded with dlopen under a minimal fake host: what it registers,
// and one kernel built and launched through the C ABI.
#include "harness.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>

#ifndef TILEOPS_CPU_REF_PLUGIN
#error "TILEOPS_CPU_REF_PLUGIN must name the built plugin"
#endif

// The host owns these; a plugin only passes them back.
struct tileops_error {
  tileops_status status = TILEOPS_OK;
  std::string message;
};
struct tileops_registrar {
  int refuse_builder_at = -1;  // refuse the n-th builder registration (a failing host)
};

using namespace cpu_ref_test;

namespace {

struct Builder {
  std::string target;
  tileops_build_kernel_fn build;
  void* user;
};

struct FakeHost {
  std::map<std::string, std::pair<tileops_detect_fn, void*>> detectors;
  std::map<std::string, Builder> builders;  // by op
  int builder_calls = 0;
  int other_calls = 0;  // device runtimes, facts, kernel types: cpu_ref registers none
};
FakeHost* g_host = nullptr;

tileops_host_api make_host_api() {
  tileops_host_api api{};
  api.struct_size = sizeof(api);
  api.abi_major = TILEOPS_ABI_MAJOR;
  api.abi_minor = TILEOPS_ABI_MINOR;
  api.error_set = [](tileops_error* err, tileops_status status, const char* message) {
    err->status = status;
    err->message = message;
  };
  api.register_detector = [](tileops_registrar*, const char* target, tileops_detect_fn fn,
                             void* user, tileops_error* err) -> tileops_status {
    if (!g_host->detectors.emplace(target, std::make_pair(fn, user)).second) {
      err->status = TILEOPS_ERR_ALREADY_EXISTS;
      return err->status;
    }
    return TILEOPS_OK;
  };
  api.register_kernel_builder = [](tileops_registrar* reg, const char* op, const char* target,
                                   tileops_build_kernel_fn fn, void* user,
                                   tileops_error* err) -> tileops_status {
    if (g_host->builder_calls++ == reg->refuse_builder_at ||
        !g_host->builders.emplace(op, Builder{target, fn, user}).second) {
      err->status = TILEOPS_ERR_ALREADY_EXISTS;
      err->message = std::string("refused ") + op;
      return err->status;
    }
    return TILEOPS_OK;
  };
  api.register_device_facts = [](tileops_registrar*, const char*, tileops_read_device_facts_fn,
                                 void*, tileops_error*) -> tileops_status {
    ++g_host->other_calls;
    return TILEOPS_OK;
  };
  api.register_device_runtime = [](tileops_registrar*, const char*, const tileops_device_runtime*,
                                   tileops_error*) -> tileops_status {
    ++g_host->other_calls;
    return TILEOPS_OK;
  };
  api.register_kernel_type = [](tileops_registrar*, const tileops_kernel_type*,
                                tileops_error*) -> tileops_status {
    ++g_host->other_calls;
    return TILEOPS_OK;
  };
  api.current_stream = [](const tileops_device*) -> void* { return nullptr; };
  api.log = [](int32_t, const char*) {};
  return api;
}

// The catalogue's ops (docs/design/op-catalogue.md), SwiGLUMLPFwdOp excepted: a
// composite needs no builder.
const std::set<std::string> kCatalogue = {
    "RMSNormFwdOp",      "FusedAddRMSNormFwdOp", "LayerNormFwdOp",
    "GroupNormFwdOp",    "SoftmaxFwdOp",         "LogSoftmaxFwdOp",
    "SumFwdOp",          "MeanFwdOp",            "AmaxFwdOp",
    "ArgmaxFwdOp",       "CumsumFwdOp",          "ReluFwdOp",
    "GeluFwdOp",         "SiluFwdOp",            "SigmoidFwdOp",
    "SiluAndMulFwdOp",   "GeluAndMulFwdOp",      "AddFwdOp",
    "MulFwdOp",          "RoPEFwdOp",            "GemmFwdOp",
    "BmmFwdOp",          "GroupedQueryAttentionFwdOp",
    "GroupedQueryAttentionDecodePagedFwdOp",
};

struct Plugin {
  void* handle = nullptr;
  tileops_plugin_abi_version_fn abi_version = nullptr;
  tileops_plugin_entry_fn entry = nullptr;
  Plugin() {
    handle = dlopen(TILEOPS_CPU_REF_PLUGIN, RTLD_NOW | RTLD_LOCAL);
    REQUIRE_MESSAGE(bool(handle), dlerror());
    abi_version = reinterpret_cast<tileops_plugin_abi_version_fn>(
        dlsym(handle, TILEOPS_PLUGIN_ABI_VERSION_SYMBOL));
    entry = reinterpret_cast<tileops_plugin_entry_fn>(dlsym(handle, TILEOPS_PLUGIN_ENTRY_SYMBOL));
  }
  ~Plugin() {
    if (handle) dlclose(handle);
  }
};

// Builds `op` through the ABI; returns the status, fills `kernel` and `err`.
tileops_status abi_build(const Builder& b, const char* op, const Inputs& inputs,
                         const Params& params, tileops_kernel* kernel, tileops_error* err) {
  const SpecViews specs(inputs);
  *kernel = tileops_kernel{};
  kernel->struct_size = sizeof(*kernel);
  const auto& list = params.list();
  return b.build(b.user, op, specs.ptrs.data(), specs.ptrs.size(), list.data(), list.size(), kernel, err);
}

tileops_status abi_launch(const tileops_kernel& k, const Inputs& inputs, const Outputs& outputs,
                          tileops_error* err) {
  const std::vector<const HostTensor*> outs(outputs.begin(), outputs.end());
  const TensorViews in(inputs), out(outs);
  return k.launch(k.self, in.ptrs.data(), in.ptrs.size(), out.ptrs.data(), out.ptrs.size(), nullptr, err);
}

}  // namespace

TEST_CASE("the cpu_ref plugin registers its target and every non-composite op") {
  Plugin plugin;
  REQUIRE(bool(plugin.abi_version));
  REQUIRE(bool(plugin.entry));
  CHECK(plugin.abi_version() == TILEOPS_ABI_VERSION);

  FakeHost host;
  g_host = &host;
  const tileops_host_api api = make_host_api();
  tileops_registrar reg;
  tileops_plugin_info info{};
  info.struct_size = sizeof(info);
  tileops_error err;
  REQUIRE(plugin.entry(&api, &reg, &info, &err) == TILEOPS_OK);
  CHECK(std::string(info.name) == "cpu_ref");
  CHECK(std::strlen(info.version) > 0);
  CHECK(bool(info.build_id));
  CHECK(host.other_calls == 0);

  // the detector claims cpu and nothing else
  REQUIRE(host.detectors.size() == 1);
  REQUIRE(host.detectors.count("cpu_ref") == 1);
  const auto [detect, user] = host.detectors.at("cpu_ref");
  const tileops_device cpu{"cpu", -1}, cuda{"cuda", 0}, cpux{"cpux", 0}, none{nullptr, 0};
  CHECK(detect(user, &cpu) == 1);
  CHECK(detect(user, &cuda) == 0);
  CHECK(detect(user, &cpux) == 0);
  CHECK(detect(user, &none) == 0);

  std::set<std::string> ops;
  for (const auto& [op, b] : host.builders) {
    ops.insert(op);
    CHECK(b.target == "cpu_ref");
  }
  CHECK(ops == kCatalogue);

  SUBCASE("AddFwdOp builds and launches end to end") {
    const HostTensor a(ScalarType::float16, {2, 3}, {1, 2, 3, 4, 5, 6});
    const HostTensor b(ScalarType::float16, {3}, {0.5, -1, 0.25});
    HostTensor y(ScalarType::float16, {2, 3});
    tileops_kernel kernel;
    REQUIRE(abi_build(host.builders.at("AddFwdOp"), "AddFwdOp", {&a, &b}, Params().f("alpha", 2.0),
                      &kernel, &err) == TILEOPS_OK);
    REQUIRE(bool(kernel.launch));
    REQUIRE(bool(kernel.release));
    CHECK(!kernel.request_tune);  // nothing to tune
    REQUIRE(abi_launch(kernel, {&a, &b}, {&y}, &err) == TILEOPS_OK);
    CHECK(y.values() == std::vector<double>{2, 0, 3.5, 5, 3, 6.5});
    REQUIRE(bool(kernel.config_json));
    CHECK(std::string(kernel.config_json(kernel.self)) ==
          R"({"backend":"cpu_ref","op":"AddFwdOp","dtype":"float16"})");
    kernel.release(kernel.self);
  }

  SUBCASE("a refused build reports UNSUPPORTED with the value it got") {
    const HostTensor x(ScalarType::int32, {2, 4});
    tileops_kernel kernel;
    CHECK(abi_build(host.builders.at("RMSNormFwdOp"), "RMSNormFwdOp", {&x, nullptr},
                    Params().ints("normalized_shape", {4}).none("eps"), &kernel,
                    &err) == TILEOPS_ERR_UNSUPPORTED);
    CHECK(err.status == TILEOPS_ERR_UNSUPPORTED);
    CHECK(err.message == "cpu_ref RMSNormFwdOp needs x of float32, float16 or bfloat16, got int32");
    CHECK(kernel.self == nullptr);
  }

  SUBCASE("a value error at launch reports INVALID_ARGUMENT naming the value") {
    const HostTensor x = random_tensor(ScalarType::bfloat16, {3, 2, 4});
    const HostTensor positions(ScalarType::int64, {3}, {0, 7, 1});
    const HostTensor cache(ScalarType::float32, {4, 4}, std::vector<double>(16, 0.5));
    HostTensor y(ScalarType::bfloat16, {3, 2, 4});
    tileops_kernel kernel;
    REQUIRE(abi_build(host.builders.at("RoPEFwdOp"), "RoPEFwdOp", {&x, &positions, &cache},
                      Params().s("layout", "neox"), &kernel, &err) == TILEOPS_OK);
    CHECK(abi_launch(kernel, {&x, &positions, &cache}, {&y}, &err) == TILEOPS_ERR_INVALID_ARGUMENT);
    CHECK(err.message ==
          "cpu_ref RoPEFwdOp: positions[1] = 7 is outside [0, 4), the rows of cos_sin_cache");
    kernel.release(kernel.self);
  }
  g_host = nullptr;
}

TEST_CASE("the cpu_ref plugin's entry fails cleanly") {
  Plugin plugin;
  REQUIRE(bool(plugin.entry));
  FakeHost host;
  g_host = &host;
  tileops_host_api api = make_host_api();
  tileops_plugin_info info{};
  info.struct_size = sizeof(info);
  tileops_error err;

  SUBCASE("a host of another ABI major") {
    api.abi_major = TILEOPS_ABI_MAJOR + 1;
    tileops_registrar reg;
    CHECK(plugin.entry(&api, &reg, &info, &err) == TILEOPS_ERR_UNSUPPORTED);
    CHECK(host.detectors.empty());
  }
  SUBCASE("a host that refuses a registration: the entry stops with its status") {
    tileops_registrar reg;
    reg.refuse_builder_at = 3;
    CHECK(plugin.entry(&api, &reg, &info, &err) == TILEOPS_ERR_ALREADY_EXISTS);
    CHECK(host.builders.size() == 3);  // the host rolls these back
    CHECK(err.message.rfind("refused ", 0) == 0);
  }
  g_host = nullptr;
}
