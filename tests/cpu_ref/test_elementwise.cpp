// Activations, gated activations and the broadcasting add / mul against long double
// references; broadcasting is resolved index by index.
#include "harness.hpp"

#include <cmath>
#include <limits>

using namespace cpu_ref_test;

namespace {

const Shape kShapes[] = {{}, {1}, {7}, {3, 5}, {2, 0, 3}, {64, 1000}};

long double ref_gelu(long double x, bool tanh_approx) {
  if (tanh_approx) {
    const long double z =
        std::sqrt(2 / 3.14159265358979323846264338327950288L) * (x + 0.044715L * x * x * x);
    if (z >= 0) return 0.5L * x * (1 + std::tanh(z));
    const long double e = std::exp(2 * z);  // 1 + tanh(z) = 2 e^2z / (1 + e^2z): no cancellation
    return x * e / (1 + e);
  }
  return 0.5L * x * std::erfc(-x / std::sqrt(2.0L));  // 1 + erf(z) = erfc(-z)
}
long double ref_sigmoid(long double x) {
  return x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x));
}
long double ref_silu(long double x) { return x * ref_sigmoid(x); }

template <class F>
std::vector<double> map_values(const std::vector<double>& x, F f) {
  std::vector<double> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = double(f(x[i]));
  return y;
}

// Element i of y's shape read from a tensor of `shape` under numpy broadcasting.
int64_t broadcast_source(int64_t i, const Shape& y_shape, const Shape& shape) {
  const Shape idx = unravel(i, y_shape);
  Shape src(shape.size());
  for (size_t d = 0; d < shape.size(); ++d)
    src[d] = shape[d] == 1 ? 0 : idx[d + y_shape.size() - shape.size()];
  return ravel(src, shape);
}

}  // namespace

TEST_CASE_TEMPLATE("ReluFwdOp matches relu, NaN staying NaN", T, CPU_REF_FLOAT_TYPES, int32_t,
                   int64_t) {
  const ScalarType type = type_of<T>();
  for (const Shape& shape : kShapes) {
    CAPTURE(tileops::sdk::format_shape(shape));
    HostTensor x = random_tensor(type, shape);
    if (!is_integer(type) && x.numel() > 2) x.set(1, NAN);
    HostTensor y(type, shape);
    run("ReluFwdOp", {&x}, {}, {&y});
    CHECK(rel_error(y.values(), map_values(x.values(), [](double v) {
            return std::isnan(v) ? v : std::max(v, 0.0);
          })) == 0);
  }
}

TEST_CASE_TEMPLATE("GeluFwdOp, SiluFwdOp, SigmoidFwdOp match", T, CPU_REF_FLOAT_TYPES) {
  const ScalarType type = type_of<T>();
  for (const Shape& shape : kShapes) {
    CAPTURE(tileops::sdk::format_shape(shape));
    HostTensor x = random_tensor(type, shape, 3.0);
    if (x.numel() > 4) {  // the tails: no overflow to NaN
      x.set(0, 100);
      x.set(1, -100);
      x.set(2, 30000);
      x.set(3, -30000);
    }
    const std::vector<double> xv = x.values();
    for (bool tanh_approx : {false, true}) {
      CAPTURE(tanh_approx);
      HostTensor y(type, shape);
      run("GeluFwdOp", {&x}, Params().s("approximate", tanh_approx ? "tanh" : "none"), {&y});
      CHECK_CLOSE(y, map_values(xv, [&](double v) { return ref_gelu(v, tanh_approx); }));
    }
    HostTensor y(type, shape);
    run("SiluFwdOp", {&x}, {}, {&y});
    CHECK_CLOSE(y, map_values(xv, ref_silu));
    y.poison();
    run("SigmoidFwdOp", {&x}, {}, {&y});
    CHECK_CLOSE(y, map_values(xv, ref_sigmoid));
  }
}

TEST_CASE_TEMPLATE("GeluFwdOp, SiluFwdOp, SigmoidFwdOp keep their accuracy in the tails", T,
                   CPU_REF_FLOAT_TYPES) {
  const ScalarType type = type_of<T>();
  // One element at a time, nothing to average the error away; the reference is rounded to
  // T, since a value below T's range cannot come out any closer than that.
  for (double x0 = -40; x0 <= 40; x0 += 0.25) {
    CAPTURE(x0);
    const HostTensor x(type, {1}, {x0});
    const std::vector<double> xv = x.values();
    for (bool tanh_approx : {false, true}) {
      HostTensor y(type, {1});
      run("GeluFwdOp", {&x}, Params().s("approximate", tanh_approx ? "tanh" : "none"), {&y});
      CHECK_CLOSE(y, rounded(type, map_values(xv, [&](double v) { return ref_gelu(v, tanh_approx); })));
    }
    HostTensor y(type, {1});
    run("SiluFwdOp", {&x}, {}, {&y});
    CHECK_CLOSE(y, rounded(type, map_values(xv, ref_silu)));
    y.poison();
    run("SigmoidFwdOp", {&x}, {}, {&y});
    CHECK_CLOSE(y, rounded(type, map_values(xv, ref_sigmoid)));
  }
}

TEST_CASE_TEMPLATE("SiluAndMulFwdOp and GeluAndMulFwdOp gate the first half by the second", T,
                   CPU_REF_FLOAT_TYPES) {
  const ScalarType type = type_of<T>();
  for (const Shape& shape : {Shape{2}, Shape{7, 26}, Shape{2, 3, 8}, Shape{0, 4}, Shape{5, 0},
                             Shape{128, 2 * 1000}}) {
    CAPTURE(tileops::sdk::format_shape(shape));
    const HostTensor x = random_tensor(type, shape, 2.0);
    Shape y_shape = shape;
    y_shape.back() /= 2;
    const int64_t n = y_shape.back();
    const std::vector<double> xv = x.values();
    auto ref = [&](auto act) {
      std::vector<double> r(size_t(numel(y_shape)));
      for (int64_t i = 0; i < int64_t(r.size()); ++i) {
        const int64_t row = i / n, col = i % n;
        r[size_t(i)] = double(act(xv[size_t(row * 2 * n + col)]) * xv[size_t(row * 2 * n + n + col)]);
      }
      return r;
    };
    HostTensor y(type, y_shape);
    run("SiluAndMulFwdOp", {&x}, {}, {&y});
    CHECK_CLOSE(y, ref(ref_silu));
    for (bool tanh_approx : {false, true}) {
      y.poison();
      run("GeluAndMulFwdOp", {&x}, Params().s("approximate", tanh_approx ? "tanh" : "none"), {&y});
      CHECK_CLOSE(y, ref([&](long double v) { return ref_gelu(v, tanh_approx); }));
    }
  }
}

namespace {
struct BroadcastCase {
  Shape a, b, y;
};
const BroadcastCase kBroadcast[] = {
    {{3, 1, 5}, {4, 1}, {3, 4, 5}}, {{}, {5}, {5}},         {{2, 3}, {2, 3}, {2, 3}},
    {{0, 3}, {3}, {0, 3}},          {{1}, {7, 1}, {7, 1}},  {{6, 1, 1, 4}, {5, 1}, {6, 1, 5, 4}},
    {{4, 1}, {}, {4, 1}},           {{}, {}, {}},           {{257, 300}, {300}, {257, 300}},
};
}  // namespace

TEST_CASE_TEMPLATE("AddFwdOp and MulFwdOp broadcast like numpy", T, CPU_REF_FLOAT_TYPES, int32_t,
                   int64_t) {
  const ScalarType type = type_of<T>();
  for (const BroadcastCase& c : kBroadcast) {
    CAPTURE(tileops::sdk::format_shape(c.a));
    CAPTURE(tileops::sdk::format_shape(c.b));
    const HostTensor a = random_tensor(type, c.a), b = random_tensor(type, c.b);
    const std::vector<double> av = a.values(), bv = b.values();
    for (double alpha : {1.0, -2.0, 3.0, 0.5}) {
      if (is_integer(type) && alpha != std::trunc(alpha)) continue;
      CAPTURE(alpha);
      HostTensor y(type, c.y);
      run("AddFwdOp", {&a, &b}, Params().f("alpha", alpha), {&y});
      std::vector<double> ref(size_t(numel(c.y)));
      for (int64_t i = 0; i < numel(c.y); ++i)
        ref[size_t(i)] = av[size_t(broadcast_source(i, c.y, c.a))] +
                         alpha * bv[size_t(broadcast_source(i, c.y, c.b))];
      CHECK_CLOSE(y, ref);
    }
    if (is_integer(type)) continue;  // MulFwdOp is floating only
    HostTensor y(type, c.y);
    run("MulFwdOp", {&a, &b}, {}, {&y});
    std::vector<double> ref(size_t(numel(c.y)));
    for (int64_t i = 0; i < numel(c.y); ++i)
      ref[size_t(i)] = av[size_t(broadcast_source(i, c.y, c.a))] *
                       bv[size_t(broadcast_source(i, c.y, c.b))];
    CHECK_CLOSE(y, ref);
  }
}

TEST_CASE("AddFwdOp on integers is exact and wraps like torch") {
  HostTensor a(ScalarType::int32, {2}), b(ScalarType::int32, {2});
  a.set_int(0, std::numeric_limits<int32_t>::max());
  b.set_int(0, 1);
  a.set_int(1, 5);
  b.set_int(1, -7);
  HostTensor y(ScalarType::int32, {2});
  run("AddFwdOp", {&a, &b}, Params().i("alpha", 3), {&y});  // an int alpha is accepted too
  CHECK(y.get_int(0) == std::numeric_limits<int32_t>::min() + 2);
  CHECK(y.get_int(1) == 5 - 21);

  HostTensor a64(ScalarType::int64, {1}), b64(ScalarType::int64, {1}), y64(ScalarType::int64, {1});
  a64.set_int(0, (int64_t(1) << 60) + 1);
  b64.set_int(0, 3);
  run("AddFwdOp", {&a64, &b64}, Params().f("alpha", 2.0), {&y64});
  CHECK(y64.get_int(0) == (int64_t(1) << 60) + 7);
}

TEST_CASE("elementwise builders reject what the manifest does not allow") {
  const HostTensor a = random_tensor(ScalarType::float32, {3, 4});
  const HostTensor b = random_tensor(ScalarType::float32, {5});
  const HostTensor ai = random_tensor(ScalarType::int64, {3});
  const HostTensor odd = random_tensor(ScalarType::float16, {2, 5});
  auto f = failure_of([&] { build("AddFwdOp", {&a, &b}, Params().f("alpha", 1.0)); });
  CHECK(f.status == TILEOPS_ERR_INVALID_ARGUMENT);
  CHECK(f.message == "cpu_ref AddFwdOp: cannot broadcast a of shape [3, 4] with b of shape [5]");
  f = failure_of([&] { build("AddFwdOp", {&ai, &ai}, Params().f("alpha", 0.5)); });
  CHECK(f.message == "cpu_ref AddFwdOp: needs an integral alpha for integer tensors, got 0.500000");
  f = failure_of([&] { build("MulFwdOp", {&ai, &ai}); });
  CHECK(f.status == TILEOPS_ERR_UNSUPPORTED);
  CHECK(f.message == "cpu_ref MulFwdOp needs a of float32, float16 or bfloat16, got int64");
  f = failure_of([&] { build("SiluAndMulFwdOp", {&odd}); });
  CHECK(f.message ==
        "cpu_ref SiluAndMulFwdOp: needs x of shape [*B, 2 * N] (an even last dim), got [2, 5]");
  f = failure_of([&] { build("GeluFwdOp", {&a}, Params().s("approximate", "sigmoid")); });
  CHECK(f.message == "cpu_ref GeluFwdOp: needs approximate 'none' or 'tanh', got 'sigmoid'");
}
