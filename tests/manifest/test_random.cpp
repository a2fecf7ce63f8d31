// Randomized: the checker's inferred output shapes (and its accept/reject decisions)
// against an independent computation, over many random valid and invalid calls.
#include "test_support.hpp"

#include <algorithm>
#include <random>

using namespace tileops;
using namespace tileops::manifest;
using namespace tileops::manifest::test;
using Shape = std::vector<int64_t>;
using std::nullopt;

namespace {

constexpr int kIterations = 2000;

std::mt19937_64& rng() {
  static std::mt19937_64 engine(20240601);  // fixed: failures reproduce
  return engine;
}
int64_t uniform(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng()); }
bool coin(double p = 0.5) { return std::bernoulli_distribution(p)(rng()); }

Shape random_shape(int64_t max_rank, std::initializer_list<int64_t> dims = {1, 2, 3, 5}) {
  Shape s(size_t(uniform(0, max_rank)));
  for (auto& d : s) d = *(dims.begin() + uniform(0, int64_t(dims.size()) - 1));
  return s;
}

// numpy broadcasting, written out independently of the library.
std::optional<Shape> numpy_broadcast(const Shape& a, const Shape& b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t k = 0; k < rank; ++k) {
    int64_t x = k < rank - a.size() ? 1 : a[k - (rank - a.size())];
    int64_t y = k < rank - b.size() ? 1 : b[k - (rank - b.size())];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[k] = std::max(x, y) == 1 ? 1 : (x == 1 ? y : x);
  }
  return out;
}

// torch.sum's output shape for `dim` (nullopt: None), or nullopt when torch rejects it.
std::optional<Shape> torch_sum_shape(const Shape& s, const std::optional<Shape>& dim, bool keepdim) {
  int64_t rank = int64_t(s.size()), bound = std::max<int64_t>(rank, 1);
  std::vector<bool> reduce(s.size(), !dim || dim->empty());
  std::vector<int64_t> seen;
  if (dim) {
    for (int64_t a : *dim) {
      if (a < -bound || a >= bound) return std::nullopt;
      int64_t n = a < 0 ? a + bound : a;
      if (std::find(seen.begin(), seen.end(), n) != seen.end()) return std::nullopt;
      seen.push_back(n);
      if (rank) reduce[size_t(n)] = true;
    }
  }
  Shape out;
  for (size_t k = 0; k < s.size(); ++k)
    if (!reduce[k]) out.push_back(s[k]);
    else if (keepdim) out.push_back(1);
  return out;
}

}  // namespace

TEST_CASE("random AddFwdOp calls: broadcast shapes") {
  auto add = bind_op(real_specs(), "AddFwdOp");
  int accepted = 0;
  for (int it = 0; it < kIterations; ++it) {
    Shape a = random_shape(4), b = random_shape(4);
    if (coin(0.5)) {  // make b a broadcastable suffix of a, often
      b.assign(a.end() - std::min<int64_t>(int64_t(a.size()), uniform(0, 4)), a.end());
      for (auto& d : b) d = coin(0.3) ? 1 : d;
    }
    CAPTURE(format_shape(a));
    CAPTURE(format_shape(b));
    Call call;
    std::string error = call.check(*add, {T{dtypes::float32, a}, T{dtypes::float32, b}});
    auto expected = numpy_broadcast(a, b);
    if (expected) {
      CHECK(error == "");
      CHECK(call.shape(0) == *expected);
      ++accepted;
    } else {
      CHECK(error == "AddFwdOp: inputs 'a' and 'b' do not broadcast: " + format_shape(a) + " and " + format_shape(b));
    }
  }
  CHECK(accepted > kIterations / 4);
  CHECK(accepted < kIterations);
}

TEST_CASE("random SumFwdOp calls: reduced shapes and axis validity") {
  int accepted = 0;
  for (int it = 0; it < kIterations; ++it) {
    Shape s = random_shape(4);
    std::optional<Shape> dim;
    if (coin(0.8)) {
      dim.emplace(size_t(uniform(0, 3)));
      for (auto& a : *dim) a = uniform(-int64_t(s.size()) - 1, int64_t(s.size()));
    }
    bool keepdim = coin();
    CAPTURE(format_shape(s));
    Params params{{"keepdim", ParamValue(keepdim)}};
    if (dim) params.emplace_back("dim", *dim);
    auto sum = bind_op(real_specs(), "SumFwdOp", params);
    Call call;
    std::string error = call.check(*sum, {T{dtypes::bfloat16, s}});
    auto expected = torch_sum_shape(s, dim, keepdim);
    if (expected) {
      CHECK(error == "");
      CHECK(call.shape(0) == *expected);
      ++accepted;
    } else {
      CHECK(error.rfind("SumFwdOp: shape rule 'valid_axes(dim, max(len(S), 1))' fails", 0) == 0);
    }
  }
  CHECK(accepted > kIterations / 4);
}

TEST_CASE("random GemmFwdOp calls with transposes") {
  for (int it = 0; it < kIterations; ++it) {
    bool ta = coin(), tb = coin();
    int64_t m = uniform(0, 9), n = uniform(0, 9), k = uniform(0, 9);
    int64_t k2 = coin(0.3) ? uniform(0, 9) : k;
    Shape a = ta ? Shape{k, m} : Shape{m, k};
    Shape b = tb ? Shape{n, k2} : Shape{k2, n};
    if (coin(0.1)) b.push_back(1);  // wrong rank
    auto gemm = bind_op(real_specs(), "GemmFwdOp", {{"trans_a", ParamValue(ta)}, {"trans_b", ParamValue(tb)}});
    Call call;
    std::string error = call.check(*gemm, {T{dtypes::float16, a}, T{dtypes::float16, b}});
    if (b.size() == 3) {
      std::string k_text = std::to_string(k);
      CHECK(error == "GemmFwdOp: input 'b' has shape " + format_shape(b) + "; the signature needs " +
                         (tb ? "[N, K] = [N, " + k_text + "]" : "[K, N] = [" + k_text + ", N]") + ": 2 axes");
      continue;
    }
    if (k2 == k) {
      CHECK(error == "");
      CHECK(call.shape(0) == Shape{m, n});
    } else {
      CHECK(error == "GemmFwdOp: input 'b' has shape " + format_shape(b) + "; K = " + std::to_string(k) +
                         " (bound by input 'a') but axis " + (tb ? "1" : "0") + " is " + std::to_string(k2));
    }
  }
}

TEST_CASE("random SiluAndMulFwdOp calls: the last axis solves 2 * N") {
  auto silu = bind_op(real_specs(), "SiluAndMulFwdOp");
  for (int it = 0; it < kIterations; ++it) {
    Shape x = random_shape(3);
    x.push_back(uniform(0, 40));
    CAPTURE(format_shape(x));
    Call call;
    std::string error = call.check(*silu, {T{dtypes::bfloat16, x}});
    if (x.back() % 2 == 0) {
      Shape expected = x;
      expected.back() /= 2;
      CHECK(error == "");
      CHECK(call.shape(0) == expected);
    } else {
      CHECK(error == "SiluAndMulFwdOp: input 'x' has shape " + format_shape(x) + "; axis " +
                         std::to_string(x.size() - 1) + " = " + std::to_string(x.back()) +
                         " must be 2 * N, which has no integer solution for N");
    }
  }
}

TEST_CASE("random RMSNormFwdOp calls: a list param spliced after a Shape index") {
  for (int it = 0; it < kIterations / 4; ++it) {
    Shape normalized = random_shape(2, {2, 3, 4});
    if (normalized.empty()) normalized.push_back(4);
    auto rms = bind_op(real_specs(), "RMSNormFwdOp", {{"normalized_shape", normalized}});
    Shape batch = random_shape(3);
    Shape x = batch;
    x.insert(x.end(), normalized.begin(), normalized.end());
    bool corrupt = coin(0.3);
    if (corrupt) x.back() += 1;
    Shape w = normalized;
    bool bad_weight = !corrupt && coin(0.2);
    if (bad_weight) w.front() += 1;
    CAPTURE(format_shape(x));
    Call call;
    std::string error = call.check(*rms, {T{dtypes::float16, x}, T{dtypes::float16, w}});
    if (!corrupt && !bad_weight) {
      CHECK(error == "");
      CHECK(call.shape(0) == x);
    } else if (corrupt) {
      CHECK(error.rfind("RMSNormFwdOp: input 'x' has shape " + format_shape(x) + "; the signature needs [*B, *normalized_shape]", 0) == 0);
    } else {
      CHECK(error == "RMSNormFwdOp: input 'weight' has shape " + format_shape(w) +
                         "; the signature needs [*normalized_shape] = " + format_shape(normalized));
    }
  }
}
