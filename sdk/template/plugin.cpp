// The smallest complete backend: target "example" serves device type "example"
// (host memory stands in for a device), with a device runtime and one op,
// ReluFwdOp, on float32. Copy this, rename the target and device type, and replace
// the runtime and kernels with your hardware's; plugins/cpu_ref in the tileops tree
// shows builders for every op of the manifest.
#include <tileops/sdk/plugin.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace {

namespace sdk = tileops::sdk;

// detect: a pure predicate on the device type.
int32_t detect(void*, const tileops_device* device) {
  return device && device->type && std::strcmp(device->type, "example") == 0;
}

// The device runtime: memory, copies (to and from "cpu" as well), synchronisation.
tileops_device_runtime example_runtime() {
  tileops_device_runtime rt{};
  rt.struct_size = sizeof rt;
  rt.device_count = [](void*) -> int32_t { return 1; };
  rt.alloc = [](void*, const tileops_device*, size_t bytes, void*, void** ptr, tileops_error*) {
    *ptr = std::malloc(bytes ? bytes : 1);
    return *ptr ? TILEOPS_OK : TILEOPS_ERR_OUT_OF_MEMORY;
  };
  rt.free = [](void*, const tileops_device*, void* ptr, void*) { std::free(ptr); };
  rt.copy = [](void*, void* dst, const tileops_device*, const void* src, const tileops_device*,
               size_t bytes, void*, tileops_error*) {
    std::memmove(dst, src, bytes);
    return TILEOPS_OK;
  };
  rt.synchronize = [](void*, const tileops_device*, void*, tileops_error*) { return TILEOPS_OK; };
  return rt;
}

// A kernel is built once per device and input signature; launch runs it on the given
// stream (here: synchronously on the host).
class Relu final : public sdk::Kernel {
 public:
  void launch(const sdk::LaunchArgs& args) override {
    const tileops_tensor& x = *args.inputs[0];
    const auto n = sdk::numel(sdk::shape_of(x.spec));
    const auto* in = static_cast<const float*>(x.data);
    auto* out = static_cast<float*>(args.outputs[0]->data);
    for (int64_t i = 0; i < n; ++i) out[i] = std::max(in[i], 0.0f);
  }
  std::string config_json() const override { return R"({"kernel":"example_relu"})"; }
};

// The builder sees descriptions only: refuse what the kernels cannot do, naming the
// value received.
std::unique_ptr<sdk::Kernel> build_relu(const sdk::BuildArgs& args) {
  const tileops_tensor_spec& x = *args.inputs[0];
  if (!sdk::same_dtype(x.dtype, sdk::kFloat32))
    sdk::unsupported("example ReluFwdOp needs float32, got " + sdk::dtype_name(x.dtype));
  return std::make_unique<Relu>();
}

}  // namespace

TILEOPS_PLUGIN(reg) {
  reg.info("example", "0.1.0", "template");
  static const tileops_device_runtime runtime = example_runtime();
  reg.device_runtime("example", runtime);
  reg.detector("example", detect);
  reg.builder("ReluFwdOp", "example", build_relu);
}
