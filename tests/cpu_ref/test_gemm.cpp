// GemmFwdOp (every transpose) and BmmFwdOp against a naive triple loop.
#include "harness.hpp"

using namespace cpu_ref_test;

namespace {

// y[i, j] = sum_p op(a)[i, p] * op(b)[p, j], long double, one dot product at a time.
std::vector<double> ref_gemm(const std::vector<double>& a, const std::vector<double>& b,
                             int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b,
                             size_t a_base = 0, size_t b_base = 0) {
  auto A = [&](int64_t i, int64_t p) { return a[a_base + size_t(trans_a ? p * m + i : i * k + p)]; };
  auto B = [&](int64_t p, int64_t j) { return b[b_base + size_t(trans_b ? j * k + p : p * n + j)]; };
  std::vector<double> y(size_t(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      long double dot = 0;
      for (int64_t p = 0; p < k; ++p) dot += (long double)A(i, p) * B(p, j);
      y[size_t(i * n + j)] = double(dot);
    }
  return y;
}

struct Mnk {
  int64_t m, n, k;
};

}  // namespace

TEST_CASE_TEMPLATE("GemmFwdOp computes op(a) @ op(b) for every transpose", T, CPU_REF_FLOAT_TYPES) {
  const ScalarType type = type_of<T>();
  for (const Mnk& s : {Mnk{1, 1, 1}, Mnk{7, 5, 3}, Mnk{33, 17, 65}, Mnk{0, 4, 3}, Mnk{4, 0, 3},
                       Mnk{4, 3, 0}, Mnk{96, 80, 300}}) {
    for (int t = 0; t < 4; ++t) {
      const bool trans_a = t & 1, trans_b = t & 2;
      CAPTURE(s.m);
      CAPTURE(s.n);
      CAPTURE(s.k);
      CAPTURE(trans_a);
      CAPTURE(trans_b);
      const HostTensor a = random_tensor(type, trans_a ? Shape{s.k, s.m} : Shape{s.m, s.k});
      const HostTensor b = random_tensor(type, trans_b ? Shape{s.n, s.k} : Shape{s.k, s.n});
      HostTensor y(type, {s.m, s.n});
      run("GemmFwdOp", {&a, &b}, Params().b("trans_a", trans_a).b("trans_b", trans_b), {&y});
      CHECK_CLOSE(y, ref_gemm(a.values(), b.values(), s.m, s.n, s.k, trans_a, trans_b));
    }
  }
}

TEST_CASE_TEMPLATE("BmmFwdOp multiplies each batch", T, CPU_REF_FLOAT_TYPES) {
  const ScalarType type = type_of<T>();
  struct Case {
    int64_t batch, m, n, k;
  };
  for (const Case& c : {Case{1, 1, 1, 1}, Case{3, 7, 5, 9}, Case{0, 2, 2, 2}, Case{2, 0, 3, 4},
                        Case{4, 16, 16, 0}, Case{5, 31, 33, 40}}) {
    CAPTURE(c.batch);
    CAPTURE(c.m);
    CAPTURE(c.n);
    CAPTURE(c.k);
    const HostTensor a = random_tensor(type, {c.batch, c.m, c.k});
    const HostTensor b = random_tensor(type, {c.batch, c.k, c.n});
    HostTensor y(type, {c.batch, c.m, c.n});
    run("BmmFwdOp", {&a, &b}, {}, {&y});
    std::vector<double> ref;
    for (int64_t i = 0; i < c.batch; ++i) {
      const auto yi = ref_gemm(a.values(), b.values(), c.m, c.n, c.k, false, false,
                               size_t(i * c.m * c.k), size_t(i * c.k * c.n));
      ref.insert(ref.end(), yi.begin(), yi.end());
    }
    CHECK_CLOSE(y, ref);
  }
}

TEST_CASE("gemm builders reject operands that do not agree") {
  const HostTensor a = random_tensor(ScalarType::bfloat16, {4, 5});
  const HostTensor b = random_tensor(ScalarType::bfloat16, {4, 6});
  const HostTensor b32 = random_tensor(ScalarType::float32, {5, 6});
  auto f = failure_of([&] { build("GemmFwdOp", {&a, &b}, Params().b("trans_a", false).b("trans_b", false)); });
  CHECK(f.status == TILEOPS_ERR_INVALID_ARGUMENT);
  CHECK(f.message ==
        "cpu_ref GemmFwdOp: needs op(a) [M, K] and op(b) [K, N] to agree on K, got K = 5 and 4 "
        "(a [4, 5], trans_a false; b [4, 6], trans_b false)");
  build("GemmFwdOp", {&a, &b}, Params().b("trans_a", true).b("trans_b", false));  // [5,4]@[4,6]
  f = failure_of([&] { build("GemmFwdOp", {&a, &b32}, Params().b("trans_a", false).b("trans_b", false)); });
  CHECK(f.message == "cpu_ref GemmFwdOp: needs b of bfloat16, got float32");
  const HostTensor a3 = random_tensor(ScalarType::float32, {2, 3, 4});
  const HostTensor b3 = random_tensor(ScalarType::float32, {3, 4, 5});
  f = failure_of([&] { build("GemmFwdOp", {&a3, &b3}, Params().b("trans_a", false).b("trans_b", false)); });
  CHECK(f.message == "cpu_ref GemmFwdOp: needs 2-D a and b, got a of shape [2, 3, 4] and b of shape [3, 4, 5]");
  f = failure_of([&] { build("BmmFwdOp", {&a3, &b3}); });
  CHECK(f.message ==
        "cpu_ref BmmFwdOp: needs a [Bt, M, K] and b [Bt, K, N], got a of shape [2, 3, 4] and b of "
        "shape [3, 4, 5]");
}
