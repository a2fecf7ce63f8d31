// RoPEFwdOp against a complex-number rotation of each pair, and its value errors.
#include "harness.hpp"

#include <cmath>
#include <complex>

using namespace cpu_ref_test;

namespace {

// cos_sin_cache [P, R]: row p = cos(p * theta_i), then sin(p * theta_i), theta_i =
// 10000^(-2i/R), as vLLM builds it (float32).
HostTensor make_cache(int64_t positions, int64_t rot_dim) {
  std::vector<double> v;
  for (int64_t p = 0; p < positions; ++p) {
    std::vector<double> cos, sin;
    for (int64_t i = 0; i < rot_dim / 2; ++i) {
      const double theta = std::pow(10000.0, -2.0 * double(i) / double(rot_dim));
      cos.push_back(std::cos(double(p) * theta));
      sin.push_back(std::sin(double(p) * theta));
    }
    v.insert(v.end(), cos.begin(), cos.end());
    v.insert(v.end(), sin.begin(), sin.end());
  }
  return HostTensor(ScalarType::float32, {positions, rot_dim}, v);
}

std::vector<double> ref_rope(const std::vector<double>& x, const std::vector<int64_t>& pos,
                             const std::vector<double>& cache, int64_t heads, int64_t head_dim,
                             int64_t rot_dim, bool neox) {
  std::vector<double> y = x;  // dims past rot_dim pass through
  for (size_t t = 0; t < pos.size(); ++t) {
    for (int64_t h = 0; h < heads; ++h) {
      const size_t base = (t * size_t(heads) + size_t(h)) * size_t(head_dim);
      for (int64_t i = 0; i < rot_dim / 2; ++i) {
        const size_t re = base + size_t(neox ? i : 2 * i);
        const size_t im = base + size_t(neox ? i + rot_dim / 2 : 2 * i + 1);
        const std::complex<long double> z(x[re], x[im]);
        const std::complex<long double> w(cache[size_t(pos[t] * rot_dim + i)],
                                          cache[size_t(pos[t] * rot_dim + rot_dim / 2 + i)]);
        const std::complex<long double> r = z * w;
        y[re] = double(r.real());
        y[im] = double(r.imag());
      }
    }
  }
  return y;
}

struct RopeCase {
  Shape batch;
  int64_t heads, head_dim, rot_dim, positions;
};
const RopeCase kCases[] = {
    {{5}, 3, 16, 16, 32},  {{2, 3}, 2, 10, 6, 50}, {{}, 4, 8, 8, 4},   {{0}, 2, 8, 8, 4},
    {{3}, 1, 2, 0, 7},     {{7}, 5, 64, 32, 100},  {{1}, 1, 2, 2, 1},
};

}  // namespace

TEST_CASE_TEMPLATE("RoPEFwdOp rotates the first R dims of each head", T, CPU_REF_FLOAT_TYPES) {
  const ScalarType type = type_of<T>();
  for (const RopeCase& c : kCases) {
    for (ScalarType pos_type : {ScalarType::int32, ScalarType::int64}) {
      for (bool neox : {true, false}) {
        CAPTURE(tileops::sdk::format_shape(c.batch));
        CAPTURE(c.head_dim);
        CAPTURE(c.rot_dim);
        CAPTURE(neox);
        Shape x_shape = c.batch;
        x_shape.push_back(c.heads);
        x_shape.push_back(c.head_dim);
        const HostTensor x = random_tensor(type, x_shape);
        const HostTensor positions(pos_type, c.batch, randint(numel(c.batch), 0, c.positions));
        const HostTensor cache = make_cache(c.positions, c.rot_dim);
        HostTensor y(type, x_shape);
        run("RoPEFwdOp", {&x, &positions, &cache}, Params().s("layout", neox ? "neox" : "interleaved"),
            {&y});
        std::vector<int64_t> pos;
        for (int64_t i = 0; i < positions.numel(); ++i) pos.push_back(positions.get_int(i));
        CHECK_CLOSE(y, ref_rope(x.values(), pos, cache.values(), c.heads, c.head_dim, c.rot_dim, neox));
      }
    }
  }
}

TEST_CASE("RoPEFwdOp: a position outside [0, P) is a value error naming it") {
  const HostTensor x = random_tensor(ScalarType::float16, {2, 3, 4, 8});
  const HostTensor cache = make_cache(50, 8);
  for (ScalarType pos_type : {ScalarType::int32, ScalarType::int64}) {
    HostTensor positions(pos_type, {2, 3}, randint(6, 0, 50));
    HostTensor y(ScalarType::float16, {2, 3, 4, 8});
    positions.set_int(5, 50);  // index [1, 2]
    auto f = failure_of([&] { run("RoPEFwdOp", {&x, &positions, &cache}, Params().s("layout", "neox"), {&y}); });
    CHECK(f.status == TILEOPS_ERR_INVALID_ARGUMENT);
    CHECK(f.message ==
          "cpu_ref RoPEFwdOp: positions[1, 2] = 50 is outside [0, 50), the rows of cos_sin_cache");
    positions.set_int(5, 0);
    positions.set_int(1, -3);  // index [0, 1]
    f = failure_of([&] { run("RoPEFwdOp", {&x, &positions, &cache}, Params().s("layout", "interleaved"), {&y}); });
    CHECK(f.status == TILEOPS_ERR_INVALID_ARGUMENT);
    CHECK(f.message ==
          "cpu_ref RoPEFwdOp: positions[0, 1] = -3 is outside [0, 50), the rows of cos_sin_cache");
    for (double v : y.values()) REQUIRE(std::isnan(v));  // nothing was written
  }
  // rank-0 positions (x [H, D]) name their element as []
  const HostTensor x0 = random_tensor(ScalarType::float32, {2, 8});
  HostTensor p0(ScalarType::int64, {});
  p0.set_int(0, 1000);
  HostTensor y0(ScalarType::float32, {2, 8});
  auto f = failure_of([&] { run("RoPEFwdOp", {&x0, &p0, &cache}, Params().s("layout", "neox"), {&y0}); });
  CHECK(f.message == "cpu_ref RoPEFwdOp: positions[] = 1000 is outside [0, 50), the rows of cos_sin_cache");
}

TEST_CASE("RoPEFwdOp's builder checks the cache against the head") {
  const HostTensor x = random_tensor(ScalarType::float32, {3, 2, 8});
  const HostTensor positions(ScalarType::int64, {3}, {0, 1, 2});
  const HostTensor odd = make_cache(4, 10);
  const HostTensor cache16 = HostTensor(ScalarType::float16, {4, 8}, randn(32));
  auto f = failure_of([&] { build("RoPEFwdOp", {&x, &positions, &odd}, Params().s("layout", "neox")); });
  CHECK(f.status == TILEOPS_ERR_INVALID_ARGUMENT);
  CHECK(f.message ==
        "cpu_ref RoPEFwdOp: needs an even rotary dim R <= D = 8, got cos_sin_cache of shape [4, 10]");
  f = failure_of([&] { build("RoPEFwdOp", {&x, &positions, &cache16}, Params().s("layout", "neox")); });
  CHECK(f.status == TILEOPS_ERR_UNSUPPORTED);
  CHECK(f.message == "cpu_ref RoPEFwdOp needs cos_sin_cache of float32, got float16");
  const HostTensor cache = make_cache(4, 8);
  f = failure_of([&] { build("RoPEFwdOp", {&x, &positions, &cache}, Params().s("layout", "gptj")); });
  CHECK(f.message == "cpu_ref RoPEFwdOp: needs layout 'neox' or 'interleaved', got 'gptj'");
  const HostTensor flat = random_tensor(ScalarType::float32, {8});
  const HostTensor no_positions(ScalarType::int64, {}, {0});
  f = failure_of([&] { build("RoPEFwdOp", {&flat, &no_positions, &cache}, Params().s("layout", "neox")); });
  CHECK(f.message == "cpu_ref RoPEFwdOp: needs x of shape [*B, H, D], got [8]");
  const HostTensor cache1 = random_tensor(ScalarType::float32, {32});
  f = failure_of([&] { build("RoPEFwdOp", {&x, &positions, &cache1}, Params().s("layout", "neox")); });
  CHECK(f.message == "cpu_ref RoPEFwdOp: needs cos_sin_cache of shape [P, R], got [32]");
}
