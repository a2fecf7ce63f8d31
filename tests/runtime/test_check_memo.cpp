// An op remembers the check of a signature that passed (calls with every input on one
// device and no output buffers) and skips it on later such calls. Everything the
// checker reads that the remembered signature does not cover must still be checked:
// an input on another device, a caller's output buffer, a signature that failed.
#include <tileops/tileops.hpp>

#include <doctest/doctest.h>

#include "inert_device.hpp"

#include <atomic>
#include <cstring>
#include <string>
#include <vector>

using namespace tileops;

namespace {

std::atomic<int> launches{0};

tileops_status entry(const tileops_host_api* host, tileops_registrar* reg, tileops_plugin_info*, tileops_error* err) {
  const tileops_device_runtime rt = testing::inert_runtime([](void*) -> int32_t { return 2; });
  if (host->register_device_runtime(reg, "checkdev", &rt, err)) return TILEOPS_ERR_INTERNAL;
  auto detect = [](void*, const tileops_device* d) -> int32_t { return std::strcmp(d->type, "checkdev") == 0; };
  if (host->register_detector(reg, "checkmemo", detect, nullptr, err)) return TILEOPS_ERR_INTERNAL;
  auto build = [](void*, const char*, const tileops_tensor_spec* const*, size_t, const tileops_param*, size_t,
                  tileops_kernel* out, tileops_error*) -> tileops_status {
    out->launch = [](void*, const tileops_tensor* const*, size_t, const tileops_tensor* const*, size_t, void*,
                     tileops_error*) -> tileops_status {
      ++launches;
      return TILEOPS_OK;
    };
    return TILEOPS_OK;
  };
  if (host->register_kernel_builder(reg, "RMSNormFwdOp", "checkmemo", build, nullptr, err)) return TILEOPS_ERR_INTERNAL;
  return TILEOPS_OK;
}

const bool registered = load_plugin_entry("checkmemo", entry);

std::string refusal(Op& op, std::span<const Tensor> inputs, std::span<Tensor> outputs) {
  try {
    op.call(inputs, outputs);
  } catch (const ValueError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a signature that passed is not checked again, and its calls still get right outputs") {
  REQUIRE(registered);
  const Device dev("checkdev", 0);
  Op op("RMSNormFwdOp", {{"normalized_shape", ints({64})}});
  const Tensor in[] = {Tensor::empty({4, 64}, dtypes::float16, dev), Tensor::empty({64}, dtypes::float16, dev)};
  const int before = launches;
  for (int i = 0; i < 3; ++i) {
    Tensor out[1];
    op.call(in, out);
    CHECK(std::vector<int64_t>(out[0].shape().begin(), out[0].shape().end()) == std::vector<int64_t>{4, 64});
    CHECK(out[0].dtype() == dtypes::float16);
    CHECK(out[0].device() == dev);
  }
  CHECK(launches - before == 3);
  // Another shape is another signature: checked, and refused when it breaks the spec.
  const Tensor wide[] = {Tensor::empty({4, 65}, dtypes::float16, dev), Tensor::empty({64}, dtypes::float16, dev)};
  Tensor out[1];
  CHECK(refusal(op, wide, out) ==
        "RMSNormFwdOp: input 'x' has shape [4, 65]; the signature needs [*B, *normalized_shape] = [4, 64]");
}

TEST_CASE("a remembered signature with an input on another device is still refused") {
  const Device d0("checkdev", 0), d1("checkdev", 1);
  Op op("RMSNormFwdOp", {{"normalized_shape", ints({64})}});
  const Tensor same[] = {Tensor::empty({4, 64}, dtypes::float16, d0), Tensor::empty({64}, dtypes::float16, d0)};
  Tensor out[1];
  op.call(same, out);
  const Tensor split[] = {Tensor::empty({4, 64}, dtypes::float16, d0), Tensor::empty({64}, dtypes::float16, d1)};
  for (int i = 0; i < 2; ++i) {
    Tensor none[1];
    CHECK(refusal(op, split, none) ==
          "RMSNormFwdOp: inputs on several devices: 'x' on checkdev:0, 'weight' on checkdev:1");
  }
  // The same signature on the other device is its own entry, with outputs there.
  const Tensor there[] = {Tensor::empty({4, 64}, dtypes::float16, d1), Tensor::empty({64}, dtypes::float16, d1)};
  Tensor moved[1];
  op.call(there, moved);
  CHECK(moved[0].device() == d1);
}

TEST_CASE("a remembered signature with a caller's output buffer is checked with it") {
  const Device d0("checkdev", 0), d1("checkdev", 1);
  Op op("RMSNormFwdOp", {{"normalized_shape", ints({64})}});
  const Tensor in[] = {Tensor::empty({4, 64}, dtypes::float16, d0), Tensor::empty({64}, dtypes::float16, d0)};
  Tensor none[1];
  op.call(in, none);  // remembered
  Tensor buffer[] = {Tensor::empty({4, 64}, dtypes::float16, d0)};
  CHECK(refusal(op, in, buffer) == "RMSNormFwdOp: output 'y' does not take a caller buffer (no 'buffer: out' in the spec)");
  Tensor elsewhere[] = {Tensor::empty({4, 64}, dtypes::float16, d1)};
  CHECK(refusal(op, in, elsewhere) ==
        "RMSNormFwdOp: inputs on several devices: 'x' on checkdev:0, 'weight' on checkdev:0, out 'y' on checkdev:1");
}

TEST_CASE("past the remembered signatures' limit, calls are checked every time and still right") {
  const Device dev("checkdev", 0);
  Op op("RMSNormFwdOp", {{"normalized_shape", ints({8})}});
  const Tensor w = Tensor::empty({8}, dtypes::float16, dev);
  for (int64_t rows = 1; rows <= 300; ++rows) {  // 300 signatures, more than the 256 remembered
    const Tensor in[] = {Tensor::empty({rows, 8}, dtypes::float16, dev), w};
    Tensor out[1];
    op.call(in, out);
    CHECK(out[0].shape()[0] == rows);
  }
  const Tensor late[] = {Tensor::empty({301, 8}, dtypes::float16, dev), w};
  Tensor out[1];
  op.call(late, out);
  CHECK(out[0].shape()[0] == 301);
  const Tensor bad[] = {Tensor::empty({301, 9}, dtypes::float16, dev), w};
  Tensor none[1];
  CHECK(refusal(op, bad, none) ==
        "RMSNormFwdOp: input 'x' has shape [301, 9]; the signature needs [*B, *normalized_shape] = [301, 8]");
}
