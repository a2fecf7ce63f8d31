// softmax, log_softmax, sum, mean, amax, argmax, cumsum against references that walk
// multi-indices (no [outer, size, inner] views, no stride tricks).
#include "harness.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

using namespace cpu_ref_test;

namespace {

const Shape kShapes[] = {{}, {1}, {7}, {3, 5}, {2, 3, 4}, {4, 1, 6}, {2, 0, 3}, {1, 1}};

int64_t norm_dim(int64_t dim, size_t rank) {
  return rank == 0 ? 0 : (dim < 0 ? dim + int64_t(rank) : dim);
}

// The flat indices of the elements on the line through element `i` along `dim`.
std::vector<int64_t> line(int64_t i, const Shape& shape, int64_t dim) {
  if (shape.empty()) return {0};
  Shape idx = unravel(i, shape);
  std::vector<int64_t> out;
  for (int64_t k = 0; k < shape[size_t(dim)]; ++k) {
    idx[size_t(dim)] = k;
    out.push_back(ravel(idx, shape));
  }
  return out;
}

std::vector<double> ref_softmax(const std::vector<double>& x, const Shape& shape, int64_t dim,
                                bool log) {
  std::vector<double> y(x.size());
  for (int64_t i = 0; i < int64_t(x.size()); ++i) {
    long double max = -INFINITY, sum = 0;
    const auto members = line(i, shape, dim);
    for (int64_t j : members) max = std::max<long double>(max, x[size_t(j)]);
    for (int64_t j : members) sum += std::exp((long double)x[size_t(j)] - max);
    y[size_t(i)] = double(log ? x[size_t(i)] - max - std::log(sum)
                              : std::exp((long double)x[size_t(i)] - max) / sum);
  }
  return y;
}

// Kept dims of `shape` (keepdim false) and the index of element i's result.
struct Reducer {
  Shape shape;
  std::vector<bool> reduced;
  Shape kept() const {
    Shape k;
    for (size_t d = 0; d < shape.size(); ++d)
      if (!reduced[d]) k.push_back(shape[d]);
    return k;
  }
  Shape kept_keepdim() const {
    Shape k = shape;
    for (size_t d = 0; d < shape.size(); ++d)
      if (reduced[d]) k[d] = 1;
    return k;
  }
  int64_t result_of(int64_t i) const {
    const Shape idx = unravel(i, shape);
    Shape out;
    for (size_t d = 0; d < shape.size(); ++d)
      if (!reduced[d]) out.push_back(idx[d]);
    return ravel(out, kept());
  }
};

Reducer reducer(const Shape& shape, const std::optional<std::vector<int64_t>>& dims) {
  Reducer r{shape, std::vector<bool>(shape.size(), !dims || dims->empty())};
  if (dims && !shape.empty())
    for (int64_t d : *dims) r.reduced[size_t(norm_dim(d, shape.size()))] = true;
  return r;
}

std::vector<double> ref_sum(const std::vector<double>& x, const Reducer& r, bool mean) {
  std::vector<long double> acc(size_t(numel(r.kept()))), count(acc.size());
  for (int64_t i = 0; i < int64_t(x.size()); ++i) {
    acc[size_t(r.result_of(i))] += x[size_t(i)];
    count[size_t(r.result_of(i))] += 1;
  }
  std::vector<double> y(acc.size());
  for (size_t i = 0; i < y.size(); ++i) y[i] = double(mean ? acc[i] / count[i] : acc[i]);
  return y;
}

std::vector<double> ref_amax(const std::vector<double>& x, const Reducer& r) {
  std::vector<double> y(size_t(numel(r.kept())), -INFINITY);
  for (int64_t i = 0; i < int64_t(x.size()); ++i) {
    double& m = y[size_t(r.result_of(i))];
    if (std::isnan(x[size_t(i)]) || x[size_t(i)] > m) m = std::isnan(m) ? m : x[size_t(i)];
  }
  return y;
}

// The index of the first NaN, else of the first maximum.
int64_t ref_argmax_of(const std::vector<double>& vals) {
  for (size_t k = 0; k < vals.size(); ++k)
    if (std::isnan(vals[k])) return int64_t(k);
  return std::max_element(vals.begin(), vals.end()) - vals.begin();  // first of equal maxima
}

// All the dims lists worth trying for a rank.
std::vector<std::optional<std::vector<int64_t>>> dim_lists(size_t rank) {
  std::vector<std::optional<std::vector<int64_t>>> out = {std::nullopt, std::vector<int64_t>{}};
  if (rank == 0) out.push_back(std::vector<int64_t>{-1});
  for (int64_t d = 0; d < int64_t(rank); ++d) {
    out.push_back(std::vector<int64_t>{d});
    out.push_back(std::vector<int64_t>{d - int64_t(rank)});
  }
  if (rank >= 3) out.push_back(std::vector<int64_t>{-1, 0});
  if (rank >= 2) out.push_back(std::vector<int64_t>{1, 0});
  return out;
}

Params dim_params(const std::optional<std::vector<int64_t>>& dims, bool keepdim) {
  Params p;
  dims ? p.ints("dim", *dims) : p.none("dim");
  p.b("keepdim", keepdim);
  return p;
}

}  // namespace

TEST_CASE_TEMPLATE("SoftmaxFwdOp and LogSoftmaxFwdOp match along every dim", T,
                   CPU_REF_FLOAT_TYPES) {
  const ScalarType type = type_of<T>();
  for (const Shape& shape : kShapes) {
    const int64_t rank = int64_t(shape.size());
    for (int64_t dim = -std::max<int64_t>(rank, 1); dim < std::max<int64_t>(rank, 1); ++dim) {
      for (bool log : {false, true}) {
        CAPTURE(tileops::sdk::format_shape(shape));
        CAPTURE(dim);
        CAPTURE(log);
        const HostTensor x = random_tensor(type, shape, 3.0);
        HostTensor y(type, shape);
        run(log ? "LogSoftmaxFwdOp" : "SoftmaxFwdOp", {&x}, Params().i("dim", dim), {&y});
        CHECK_CLOSE(y, ref_softmax(x.values(), shape, norm_dim(dim, shape.size()), log));
      }
    }
  }
}

TEST_CASE("SoftmaxFwdOp: masked (-inf) entries get 0, a fully masked row NaN, as torch") {
  std::vector<double> v = {1, -INFINITY, 2, 0.5, -INFINITY, -INFINITY, -INFINITY, -INFINITY};
  const HostTensor x(ScalarType::float32, {2, 4}, v);
  HostTensor y(ScalarType::float32, {2, 4});
  run("SoftmaxFwdOp", {&x}, Params().i("dim", -1), {&y});
  CHECK(y.get(1) == 0.0);
  CHECK(y.get(0) + y.get(2) + y.get(3) == doctest::Approx(1.0));
  for (int i = 4; i < 8; ++i) CHECK(std::isnan(y.get(i)));
}

TEST_CASE_TEMPLATE("SumFwdOp and MeanFwdOp match over every dims list", T, CPU_REF_FLOAT_TYPES) {
  const ScalarType type = type_of<T>();
  for (const Shape& shape : kShapes) {
    for (const auto& dims : dim_lists(shape.size())) {
      for (bool keepdim : {false, true}) {
        for (bool mean : {false, true}) {
          CAPTURE(tileops::sdk::format_shape(shape));
          CAPTURE(dims ? tileops::sdk::format_shape(*dims) : std::string("None"));
          CAPTURE(keepdim);
          CAPTURE(mean);
          const Reducer r = reducer(shape, dims);
          const HostTensor x = random_tensor(type, shape);
          HostTensor y(type, keepdim ? r.kept_keepdim() : r.kept());
          run(mean ? "MeanFwdOp" : "SumFwdOp", {&x}, dim_params(dims, keepdim), {&y});
          CHECK_CLOSE(y, ref_sum(x.values(), r, mean));
        }
      }
    }
  }
}

TEST_CASE("SumFwdOp accumulates a 4M-element reduction accurately") {
  const int64_t rows = 1024, cols = 4096;
  const HostTensor x = random_tensor(ScalarType::float32, {rows, cols});
  const std::vector<double> xv = x.values();
  for (int64_t dim : {0, 1}) {
    CAPTURE(dim);
    std::vector<long double> acc(size_t(dim == 0 ? cols : rows));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) acc[size_t(dim == 0 ? c : r)] += xv[size_t(r * cols + c)];
    HostTensor y(ScalarType::float32, {int64_t(acc.size())});
    run("SumFwdOp", {&x}, dim_params(std::vector<int64_t>{dim}, false), {&y});
    CHECK_CLOSE(y, std::vector<double>(acc.begin(), acc.end()));
  }
}

TEST_CASE_TEMPLATE("AmaxFwdOp matches, NaN propagating", T, CPU_REF_FLOAT_TYPES, int32_t,
                   int64_t) {
  const ScalarType type = type_of<T>();
  for (const Shape& shape : kShapes) {
    for (const auto& dims : dim_lists(shape.size())) {
      const Reducer r = reducer(shape, dims);
      if (numel(shape) == 0 && numel(r.kept()) > 0) continue;  // rejected: see below
      for (bool keepdim : {false, true}) {
        CAPTURE(tileops::sdk::format_shape(shape));
        CAPTURE(dims ? tileops::sdk::format_shape(*dims) : std::string("None"));
        HostTensor x = random_tensor(type, shape);
        if (!is_integer(type) && x.numel() > 3) x.set(2, NAN);
        HostTensor y(type, keepdim ? r.kept_keepdim() : r.kept());
        run("AmaxFwdOp", {&x}, dim_params(dims, keepdim), {&y});
        CHECK(rel_error(y.values(), ref_amax(x.values(), r)) == 0);  // exact: a copy
      }
    }
  }
}

TEST_CASE("AmaxFwdOp is exact on int64 beyond 2^53") {
  const int64_t big = (int64_t(1) << 60) + 1;
  HostTensor x(ScalarType::int64, {3});
  x.set_int(0, big - 2);
  x.set_int(1, big);
  x.set_int(2, big - 1);
  HostTensor y(ScalarType::int64, {});
  run("AmaxFwdOp", {&x}, Params().none("dim").b("keepdim", false), {&y});
  CHECK(y.get_int(0) == big);
}

TEST_CASE_TEMPLATE("ArgmaxFwdOp: first maximum, NaN counts as the maximum", T,
                   CPU_REF_FLOAT_TYPES, int32_t, int64_t) {
  const ScalarType type = type_of<T>();
  for (const Shape& shape : kShapes) {
    std::vector<std::optional<int64_t>> dims = {std::nullopt};
    for (int64_t d = -std::max<int64_t>(int64_t(shape.size()), 1);
         d < std::max<int64_t>(int64_t(shape.size()), 1); ++d)
      dims.push_back(d);
    for (const auto& dim : dims) {
      for (bool keepdim : {false, true}) {
        for (bool with_nan : {false, true}) {
          if (with_nan && is_integer(type)) continue;
          CAPTURE(tileops::sdk::format_shape(shape));
          CAPTURE(dim.value_or(999));
          CAPTURE(keepdim);
          const Reducer r = reducer(shape, dim ? std::optional(std::vector<int64_t>{*dim})
                                               : std::nullopt);
          if (dim ? (!shape.empty() && shape[size_t(norm_dim(*dim, shape.size()))] == 0)
                  : numel(shape) == 0)
            continue;  // rejected
          // few distinct values: many ties
          HostTensor x(type, shape, randint(numel(shape), 0, 3));
          if (with_nan && x.numel() > 4) {
            x.set(1, NAN);
            x.set(4, NAN);
          }
          HostTensor y(ScalarType::int64, keepdim ? r.kept_keepdim() : r.kept());
          Params p;
          dim ? p.i("dim", *dim) : p.none("dim");
          run("ArgmaxFwdOp", {&x}, p.b("keepdim", keepdim), {&y});
          // reference: per result, the values of its elements in order
          const std::vector<double> xv = x.values();
          std::vector<std::vector<double>> groups(size_t(numel(r.kept())));
          for (int64_t i = 0; i < x.numel(); ++i) groups[size_t(r.result_of(i))].push_back(xv[size_t(i)]);
          std::vector<double> ref;
          for (const auto& g : groups) ref.push_back(double(ref_argmax_of(g)));
          CHECK(rel_error(y.values(), ref) == 0);
        }
      }
    }
  }
}

TEST_CASE_TEMPLATE("CumsumFwdOp matches along every dim", T, CPU_REF_FLOAT_TYPES, int64_t) {
  const ScalarType type = type_of<T>();
  for (const Shape& shape : kShapes) {
    const int64_t rank = int64_t(shape.size());
    for (int64_t dim = -std::max<int64_t>(rank, 1); dim < std::max<int64_t>(rank, 1); ++dim) {
      CAPTURE(tileops::sdk::format_shape(shape));
      CAPTURE(dim);
      const HostTensor x = random_tensor(type, shape);
      HostTensor y(type, shape);
      run("CumsumFwdOp", {&x}, Params().i("dim", dim), {&y});
      const std::vector<double> xv = x.values();
      std::vector<double> ref(xv.size());
      for (int64_t i = 0; i < x.numel(); ++i) {
        long double s = 0;
        const Shape idx = shape.empty() ? Shape{} : unravel(i, shape);
        for (int64_t j : line(i, shape, norm_dim(dim, shape.size())))
          if (shape.empty() || unravel(j, shape)[size_t(norm_dim(dim, shape.size()))] <=
                                   idx[size_t(norm_dim(dim, shape.size()))])
            s += xv[size_t(j)];
        ref[size_t(i)] = double(s);
      }
      CHECK_CLOSE(y, ref);
    }
  }
}

TEST_CASE("CumsumFwdOp on int64 is exact beyond 2^53") {
  HostTensor x(ScalarType::int64, {4});
  const int64_t big = (int64_t(1) << 55) + 3;
  for (int i = 0; i < 4; ++i) x.set_int(i, big + i);
  HostTensor y(ScalarType::int64, {4});
  run("CumsumFwdOp", {&x}, Params().i("dim", 0), {&y});
  int64_t s = 0;
  for (int i = 0; i < 4; ++i) CHECK(y.get_int(i) == (s += big + i));
}

TEST_CASE("reduction builders reject bad dims and empty maxima") {
  const HostTensor x = random_tensor(ScalarType::float32, {3, 4});
  const HostTensor empty = random_tensor(ScalarType::float32, {0, 4});
  auto f = failure_of([&] { build("SoftmaxFwdOp", {&x}, Params().i("dim", 2)); });
  CHECK(f.status == TILEOPS_ERR_INVALID_ARGUMENT);
  CHECK(f.message == "cpu_ref SoftmaxFwdOp: dim 2 is out of range for rank 2 (expected [-2, 1])");
  f = failure_of([&] { build("SumFwdOp", {&x}, dim_params(std::vector<int64_t>{1, -1}, false)); });
  CHECK(f.message == "cpu_ref SumFwdOp: dim [1, -1] repeats an axis");
  f = failure_of([&] { build("AmaxFwdOp", {&empty}, dim_params(std::vector<int64_t>{0}, false)); });
  CHECK(f.message ==
        "cpu_ref AmaxFwdOp: cannot reduce x of shape [0, 4] over an empty axis: the maximum of "
        "no element is undefined");
  // an empty result from an empty input is fine
  HostTensor y(ScalarType::float32, {0});
  run("AmaxFwdOp", {&empty}, dim_params(std::vector<int64_t>{1}, false), {&y});
  f = failure_of([&] { build("ArgmaxFwdOp", {&empty}, Params().none("dim").b("keepdim", false)); });
  CHECK(f.message == "cpu_ref ArgmaxFwdOp: cannot take the argmax of x of shape [0, 4] over an empty axis");
  const HostTensor xi = random_tensor(ScalarType::int32, {3});
  f = failure_of([&] { build("CumsumFwdOp", {&xi}, Params().i("dim", 0)); });
  CHECK(f.status == TILEOPS_ERR_UNSUPPORTED);
  CHECK(f.message == "cpu_ref CumsumFwdOp needs x of float32, float16, bfloat16 or int64, got int32");
}
