// The builder table, the checks every build makes, and the launch contract every
// kernel enforces.
#include "harness.hpp"

#include <algorithm>
#include <string>

using namespace cpu_ref_test;
namespace sdk = tileops::sdk;

TEST_CASE("the builder table names every non-composite op, once") {
  std::vector<std::string> ops;
  for (const auto& b : tileops::cpu_ref::op_builders()) {
    ops.push_back(b.op);
    CHECK(bool(b.build));
    CHECK((tileops::cpu_ref::find_builder(b.op) == b.build));
  }
  std::sort(ops.begin(), ops.end());
  CHECK(std::adjacent_find(ops.begin(), ops.end()) == ops.end());
  CHECK(ops.size() == 24);
  CHECK(!tileops::cpu_ref::find_builder("SwiGLUMLPFwdOp"));
  CHECK(!tileops::cpu_ref::find_builder("NoSuchFwdOp"));
}

TEST_CASE("a build names what it cannot serve") {
  const HostTensor x = random_tensor(ScalarType::float32, {4, 8});
  const auto params = Params().ints("normalized_shape", {8}).none("eps");
  const auto& list = params.list();

  SUBCASE("a tensor on another device") {
    const tileops_tensor_spec spec = x.spec("cuda");
    const tileops_tensor_spec* inputs[] = {&spec, nullptr};
    const auto f = failure_of([&] {
      tileops::cpu_ref::build_rms_norm(sdk::BuildArgs{"RMSNormFwdOp", inputs,
                                                      sdk::ParamList(list.data(), list.size())});
    });
    CHECK(f.status == TILEOPS_ERR_UNSUPPORTED);
    CHECK(f.message == "cpu_ref RMSNormFwdOp needs x on device cpu, got cuda:-1");
  }
  SUBCASE("a dtype outside cpu_ref's") {
    const HostTensor x8(ScalarType::float32, {4, 8});
    tileops_tensor_spec spec = x8.spec();
    spec.dtype = {TILEOPS_DTYPE_FLOAT, 64, 1};
    const tileops_tensor_spec* inputs[] = {&spec, nullptr};
    const auto f = failure_of([&] {
      tileops::cpu_ref::build_rms_norm(sdk::BuildArgs{"RMSNormFwdOp", inputs,
                                                      sdk::ParamList(list.data(), list.size())});
    });
    CHECK(f.status == TILEOPS_ERR_UNSUPPORTED);
    CHECK(f.message == "cpu_ref RMSNormFwdOp needs x of float32, float16 or bfloat16, got float64");
  }
  SUBCASE("the wrong number of inputs") {
    const auto f = failure_of([&] { build("RMSNormFwdOp", {&x}, params); });
    CHECK(f.status == TILEOPS_ERR_INVALID_ARGUMENT);
    CHECK(f.message == "cpu_ref RMSNormFwdOp: expects 2 inputs, got 1");
  }
  SUBCASE("a missing or mistyped param") {
    auto f = failure_of([&] { build("RMSNormFwdOp", {&x, nullptr}, Params().none("eps")); });
    CHECK(f.status == TILEOPS_ERR_INVALID_ARGUMENT);
    CHECK(f.message == "missing parameter 'normalized_shape'");
    f = failure_of([&] { build("SoftmaxFwdOp", {&x}, Params().f("dim", 1.0)); });
    CHECK(f.message == "parameter 'dim' should be int, got float");
    f = failure_of([&] { build("SoftmaxFwdOp", {&x}, Params().none("dim")); });
    CHECK(f.message == "parameter 'dim' should be int, got None");
  }
}

TEST_CASE("int-or-list params take a single int, as torch does") {
  const HostTensor x = random_tensor(ScalarType::float32, {3, 5});
  HostTensor y(ScalarType::float32, {3, 5});
  run("RMSNormFwdOp", {&x, nullptr}, Params().i("normalized_shape", 5).f("eps", 1e-6), {&y});
  HostTensor s(ScalarType::float32, {3});
  run("SumFwdOp", {&x}, Params().i("dim", -1).b("keepdim", false), {&s});
  const auto xv = x.values();
  for (int r = 0; r < 3; ++r) {
    double sum = 0;
    for (int c = 0; c < 5; ++c) sum += xv[size_t(r * 5 + c)];
    CHECK(s.get(r) == doctest::Approx(sum).epsilon(1e-6));
  }
}

TEST_CASE("a kernel checks each launch against what it was built for") {
  const HostTensor x = random_tensor(ScalarType::float32, {4, 8});
  const HostTensor w = random_tensor(ScalarType::float32, {8});
  auto kernel = build("RMSNormFwdOp", {&x, &w}, Params().ints("normalized_shape", {8}).none("eps"));
  HostTensor y(ScalarType::float32, {4, 8});
  launch(*kernel, {&x, &w}, {&y});  // as built: fine
  CHECK(kernel->config_json() == R"({"backend":"cpu_ref","op":"RMSNormFwdOp","dtype":"float32"})");

  auto broken = [&](const Inputs& in, const Outputs& out, const std::string& message) {
    const auto f = failure_of([&] { launch(*kernel, in, out); });
    CHECK(f.status == TILEOPS_ERR_INTERNAL);
    CHECK(f.message == "cpu_ref RMSNormFwdOp: " + message);
  };
  const HostTensor x9 = random_tensor(ScalarType::float32, {4, 9});
  broken({&x9, &w}, {&y}, "x was float32 [4, 8] at build, float32 [4, 9] at launch");
  broken({&x, nullptr}, {&y}, "weight was present at build, absent at launch");
  broken({&x}, {&y}, "launched with 1 inputs, built for 2");
  HostTensor y16(ScalarType::float16, {4, 8});
  broken({&x, &w}, {&y16}, "y was float32 [4, 8] at build, float16 [4, 8] at launch");
  HostTensor strided = random_tensor(ScalarType::float32, {4, 8});
  strided.restride({8, 4}, {1, 4});  // a transposed view
  broken({&strided, &w}, {&y}, "x is not contiguous (strides [1, 4])");
}

TEST_CASE("empty tensors build and launch") {
  const HostTensor x = random_tensor(ScalarType::bfloat16, {0, 8});
  HostTensor y(ScalarType::bfloat16, {0, 8});
  run("LayerNormFwdOp", {&x, nullptr, nullptr}, Params().ints("normalized_shape", {8}).f("eps", 1e-5), {&y});
  HostTensor s(ScalarType::bfloat16, {8});
  run("SumFwdOp", {&x}, Params().ints("dim", {0}).b("keepdim", false), {&s});
  for (double v : s.values()) CHECK(v == 0.0);  // the sum of nothing
  run("MeanFwdOp", {&x}, Params().ints("dim", {0}).b("keepdim", false), {&s});
  for (double v : s.values()) CHECK(std::isnan(v));  // torch: the mean of nothing is NaN
}
