// RMSNorm, fused add + RMSNorm, LayerNorm, GroupNorm against references written from
// the formulas in long double.
#include "harness.hpp"

#include <cmath>

using namespace cpu_ref_test;

namespace {

// One row's statistics: the mean, and the mean of squares.
struct Moments {
  long double mean = 0, mean_sq = 0;
};
Moments moments(const std::vector<double>& x, int64_t begin, int64_t count) {
  Moments m;
  for (int64_t i = begin; i < begin + count; ++i) {
    m.mean += x[size_t(i)];
    m.mean_sq += (long double)x[size_t(i)] * x[size_t(i)];
  }
  m.mean /= count;
  m.mean_sq /= count;
  return m;
}

std::vector<double> ref_rms_norm(const std::vector<double>& x, const std::vector<double>* w,
                                 int64_t cols, double eps) {
  std::vector<double> y(x.size());
  for (int64_t r = 0; r * cols < int64_t(x.size()); ++r) {
    const long double scale = 1.0L / std::sqrt(moments(x, r * cols, cols).mean_sq + eps);
    for (int64_t j = 0; j < cols; ++j)
      y[size_t(r * cols + j)] = double(x[size_t(r * cols + j)] * scale * (w ? (*w)[size_t(j)] : 1.0));
  }
  return y;
}

std::vector<double> ref_layer_norm(const std::vector<double>& x, const std::vector<double>* w,
                                   const std::vector<double>* b, int64_t cols, double eps) {
  std::vector<double> y(x.size());
  for (int64_t r = 0; r * cols < int64_t(x.size()); ++r) {
    const Moments m = moments(x, r * cols, cols);
    const long double var = m.mean_sq - m.mean * m.mean;  // biased
    for (int64_t j = 0; j < cols; ++j) {
      long double v = (x[size_t(r * cols + j)] - m.mean) / std::sqrt(var + eps);
      if (w) v *= (*w)[size_t(j)];
      if (b) v += (*b)[size_t(j)];
      y[size_t(r * cols + j)] = double(v);
    }
  }
  return y;
}

Shape concat(const Shape& a, const Shape& b) {
  Shape out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

struct NormCase {
  Shape batch;
  Shape normalized;
};
const NormCase kNormCases[] = {
    {{1}, {64}},      {{3, 7}, {33}}, {{2}, {5, 6}},  {{}, {17}},
    {{0}, {16}},      {{5}, {1}},     {{129}, {96}},
};

}  // namespace

TEST_CASE_TEMPLATE("RMSNormFwdOp matches rms_norm", T, CPU_REF_FLOAT_TYPES) {
  const ScalarType type = type_of<T>();
  for (const NormCase& c : kNormCases) {
    for (bool with_weight : {true, false}) {
      for (bool eps_none : {true, false}) {
        CAPTURE(tileops::sdk::format_shape(c.batch));
        CAPTURE(tileops::sdk::format_shape(c.normalized));
        CAPTURE(with_weight);
        CAPTURE(eps_none);
        const HostTensor x = random_tensor(type, concat(c.batch, c.normalized));
        const HostTensor w = random_tensor(type, c.normalized);
        HostTensor y(type, x.shape());
        Params p;
        p.ints("normalized_shape", c.normalized);
        eps_none ? p.none("eps") : p.f("eps", 1e-5);
        run("RMSNormFwdOp", {&x, with_weight ? &w : nullptr}, p, {&y});
        const std::vector<double> wv = w.values();
        const double eps = eps_none ? tileops::cpu_ref::machine_epsilon<T>() : 1e-5;
        CHECK_CLOSE(y, ref_rms_norm(x.values(), with_weight ? &wv : nullptr,
                                    numel(c.normalized), eps));
      }
    }
  }
}

TEST_CASE_TEMPLATE("RMSNormFwdOp's eps None is torch.finfo(x.dtype).eps", T, CPU_REF_FLOAT_TYPES) {
  // Small inputs make mean(x^2) comparable to eps, so the eps used shows in y.
  const ScalarType type = type_of<T>();
  const HostTensor x = random_tensor(type, {8, 32}, 0.02);
  HostTensor y(type, x.shape());
  run("RMSNormFwdOp", {&x, nullptr}, Params().ints("normalized_shape", {32}).none("eps"), {&y});
  const double eps = tileops::cpu_ref::machine_epsilon<T>();
  CHECK_CLOSE(y, ref_rms_norm(x.values(), nullptr, 32, eps));
  if (type != ScalarType::float32)  // the test can tell float32's eps from the right one
    CHECK(rel_error(y.values(), ref_rms_norm(x.values(), nullptr, 32, 0x1p-23)) >
          10 * tolerance(type));
}

TEST_CASE_TEMPLATE("FusedAddRMSNormFwdOp updates residual in place and normalises it", T,
                   CPU_REF_FLOAT_TYPES) {
  const ScalarType type = type_of<T>();
  for (const NormCase& c : kNormCases) {
    for (bool with_weight : {true, false}) {
      CAPTURE(tileops::sdk::format_shape(c.batch));
      CAPTURE(tileops::sdk::format_shape(c.normalized));
      CAPTURE(with_weight);
      const Shape shape = concat(c.batch, c.normalized);
      const HostTensor x = random_tensor(type, shape);
      HostTensor residual = random_tensor(type, shape);
      const HostTensor w = random_tensor(type, c.normalized);
      // residual += x, rounded to T like any store into a T tensor
      std::vector<double> sum = x.values();
      const std::vector<double> res0 = residual.values();
      for (size_t i = 0; i < sum.size(); ++i) sum[i] += res0[i];
      sum = rounded(type, sum);
      HostTensor y(type, shape);
      run("FusedAddRMSNormFwdOp", {&x, &residual, with_weight ? &w : nullptr},
          Params().ints("normalized_shape", c.normalized).f("eps", 1e-6), {&y, &residual});
      const std::vector<double> wv = w.values();
      CHECK(rel_error(residual.values(), sum) == 0);
      CHECK_CLOSE(y, ref_rms_norm(sum, with_weight ? &wv : nullptr, numel(c.normalized), 1e-6));
    }
  }
}

TEST_CASE_TEMPLATE("FusedAddRMSNormFwdOp writes a strided residual in place", T,
                   CPU_REF_FLOAT_TYPES) {
  const ScalarType type = type_of<T>();
  const HostTensor x = random_tensor(type, {6, 24});
  HostTensor residual = random_tensor(type, {6, 24});
  residual.restride({6, 50}, {50, 2});  // every other element of wider rows
  std::vector<double> sum = x.values();
  const std::vector<double> res0 = residual.values();
  for (size_t i = 0; i < sum.size(); ++i) sum[i] += res0[i];
  sum = rounded(type, sum);
  HostTensor y(type, {6, 24});
  run("FusedAddRMSNormFwdOp", {&x, &residual, nullptr},
      Params().ints("normalized_shape", {24}).f("eps", 1e-6), {&y, &residual});
  CHECK(rel_error(residual.values(), sum) == 0);
  CHECK_CLOSE(y, ref_rms_norm(sum, nullptr, 24, 1e-6));

  SUBCASE("a residual_out that is not the residual's memory is filled too") {
    HostTensor residual2 = HostTensor(type, {6, 24}, res0);
    HostTensor out(type, {6, 24});
    run("FusedAddRMSNormFwdOp", {&x, &residual2, nullptr},
        Params().ints("normalized_shape", {24}).f("eps", 1e-6), {&y, &out});
    CHECK(rel_error(residual2.values(), sum) == 0);
    CHECK(rel_error(out.values(), sum) == 0);
  }
}

TEST_CASE_TEMPLATE("LayerNormFwdOp matches layer_norm", T, CPU_REF_FLOAT_TYPES) {
  const ScalarType type = type_of<T>();
  for (const NormCase& c : kNormCases) {
    for (int affine = 0; affine < 4; ++affine) {
      const bool with_w = affine & 1, with_b = affine & 2;
      CAPTURE(tileops::sdk::format_shape(c.batch));
      CAPTURE(tileops::sdk::format_shape(c.normalized));
      CAPTURE(affine);
      // an offset mean: the variance must not cancel
      HostTensor x = random_tensor(type, concat(c.batch, c.normalized));
      for (int64_t i = 0; i < x.numel(); ++i) x.set(i, x.get(i) + 3.0);
      const HostTensor w = random_tensor(type, c.normalized), b = random_tensor(type, c.normalized);
      HostTensor y(type, x.shape());
      run("LayerNormFwdOp", {&x, with_w ? &w : nullptr, with_b ? &b : nullptr},
          Params().ints("normalized_shape", c.normalized).f("eps", 1e-5), {&y});
      const std::vector<double> wv = w.values(), bv = b.values();
      CHECK_CLOSE(y, ref_layer_norm(x.values(), with_w ? &wv : nullptr, with_b ? &bv : nullptr,
                                    numel(c.normalized), 1e-5));
    }
  }
}

TEST_CASE_TEMPLATE("GroupNormFwdOp matches group_norm", T, CPU_REF_FLOAT_TYPES) {
  const ScalarType type = type_of<T>();
  struct Case {
    Shape x;
    int64_t groups;
  };
  for (const Case& c : {Case{{2, 6, 5, 3}, 3}, Case{{1, 4}, 2}, Case{{3, 8, 7}, 8},
                        Case{{2, 5, 9}, 1}, Case{{0, 4, 3}, 2}, Case{{2, 4, 0}, 2}}) {
    for (bool affine : {true, false}) {
      CAPTURE(tileops::sdk::format_shape(c.x));
      CAPTURE(c.groups);
      CAPTURE(affine);
      const int64_t n = c.x[0], channels = c.x[1];
      const int64_t spatial = numel(c.x) / std::max<int64_t>(n * channels, 1);
      const HostTensor x = random_tensor(type, c.x);
      const HostTensor w = random_tensor(type, {channels}), b = random_tensor(type, {channels});
      HostTensor y(type, c.x);
      run("GroupNormFwdOp", {&x, affine ? &w : nullptr, affine ? &b : nullptr},
          Params().i("num_groups", c.groups).f("eps", 1e-5), {&y});
      // statistics per (sample, group), gathered element by element
      const std::vector<double> xv = x.values(), wv = w.values(), bv = b.values();
      const int64_t per_group = channels / c.groups;
      std::vector<long double> sum(size_t(n * c.groups)), sum_sq(sum.size());
      for (int64_t i = 0; i < int64_t(xv.size()); ++i) {
        const Shape idx = unravel(i, {n, channels, spatial});
        const size_t g = size_t(idx[0] * c.groups + idx[1] / per_group);
        sum[g] += xv[size_t(i)];
        sum_sq[g] += (long double)xv[size_t(i)] * xv[size_t(i)];
      }
      std::vector<double> ref(xv.size());
      for (int64_t i = 0; i < int64_t(xv.size()); ++i) {
        const Shape idx = unravel(i, {n, channels, spatial});
        const size_t g = size_t(idx[0] * c.groups + idx[1] / per_group);
        const long double count = per_group * spatial;
        const long double mean = sum[g] / count, var = sum_sq[g] / count - mean * mean;
        long double v = (xv[size_t(i)] - mean) / std::sqrt(var + 1e-5L);
        if (affine) v = v * wv[size_t(idx[1])] + bv[size_t(idx[1])];
        ref[size_t(i)] = double(v);
      }
      CHECK_CLOSE(y, ref);
    }
  }
}

TEST_CASE("norm builders reject what the manifest does not allow") {
  const HostTensor x = random_tensor(ScalarType::float32, {4, 8});
  const HostTensor w16 = random_tensor(ScalarType::float16, {8});
  const HostTensor w7 = random_tensor(ScalarType::float32, {7});
  const HostTensor xi = random_tensor(ScalarType::int32, {4, 8});
  auto f = failure_of([&] {
    build("RMSNormFwdOp", {&x, nullptr}, Params().ints("normalized_shape", {4}).none("eps"));
  });
  CHECK(f.status == TILEOPS_ERR_INVALID_ARGUMENT);
  CHECK(f.message ==
        "cpu_ref RMSNormFwdOp: needs x's trailing dims equal to normalized_shape [4], got x of "
        "shape [4, 8]");
  f = failure_of([&] {
    build("RMSNormFwdOp", {&xi, nullptr}, Params().ints("normalized_shape", {8}).none("eps"));
  });
  CHECK(f.status == TILEOPS_ERR_UNSUPPORTED);
  CHECK(f.message == "cpu_ref RMSNormFwdOp needs x of float32, float16 or bfloat16, got int32");
  f = failure_of([&] {
    build("LayerNormFwdOp", {&x, &w16, nullptr}, Params().ints("normalized_shape", {8}).f("eps", 1e-5));
  });
  CHECK(f.message == "cpu_ref LayerNormFwdOp: needs weight of float32, got float16");
  f = failure_of([&] {
    build("LayerNormFwdOp", {&x, nullptr, &w7}, Params().ints("normalized_shape", {8}).f("eps", 1e-5));
  });
  CHECK(f.message == "cpu_ref LayerNormFwdOp: needs bias of shape [8], got [7]");
  f = failure_of([&] {
    build("GroupNormFwdOp", {&x, nullptr, nullptr}, Params().i("num_groups", 3).f("eps", 1e-5));
  });
  CHECK(f.message == "cpu_ref GroupNormFwdOp: needs num_groups > 0 dividing the 8 channels, got 3");
  const HostTensor x1 = random_tensor(ScalarType::float32, {8});
  f = failure_of([&] {
    build("GroupNormFwdOp", {&x1, nullptr, nullptr}, Params().i("num_groups", 2).f("eps", 1e-5));
  });
  CHECK(f.message == "cpu_ref GroupNormFwdOp: needs x of shape [N, C, *S], got [8]");
  f = failure_of([&] {
    build("RMSNormFwdOp", {&x, nullptr}, Params().ints("normalized_shape", {}).none("eps"));
  });
  CHECK(f.message == "cpu_ref RMSNormFwdOp: needs a non-empty normalized_shape");
}
