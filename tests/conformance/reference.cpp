#include "reference.hpp"

#include "tensor_values.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace conformance {
namespace {

using Shape = std::vector<int64_t>;

int64_t prod(const Shape& s, size_t from = 0, size_t to = SIZE_MAX) {
  int64_t n = 1;
  for (size_t i = from; i < std::min(to, s.size()); ++i) n *= s[i];
  return n;
}

int64_t norm_axis(int64_t d, size_t rank) {
  const int64_t r = std::max<int64_t>(int64_t(rank), 1);
  return d < 0 ? d + r : d;
}

// torch.finfo(dtype).eps
double finfo_eps(tileops::DType t) {
  if (t == dt::float16) return 0.0009765625;
  if (t == dt::bfloat16) return 0.0078125;
  return 1.1920928955078125e-07;
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double silu(double x) { return x * sigmoid(x); }
double gelu(double x, bool tanh_form) {
  if (tanh_form) {
    const double k = std::sqrt(2.0 / M_PI);
    return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
  }
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}

// ---- norm ------------------------------------------------------------------------------

Buffer rms_norm(const Buffer& x, const Buffer* w, int64_t n, double eps) {
  Buffer y(x.size());
  for (size_t r = 0; r < x.size() / size_t(n); ++r) {
    double ss = 0;
    for (int64_t i = 0; i < n; ++i) ss += x[r * n + i] * x[r * n + i];
    const double inv = 1.0 / std::sqrt(ss / double(n) + eps);
    for (int64_t i = 0; i < n; ++i) y[r * n + i] = x[r * n + i] * inv * (w ? (*w)[i] : 1.0);
  }
  return y;
}

// Normalises `count` groups of `n` consecutive elements; the affine terms indexed by
// `channel(group, i)`.
template <class Channel>
Buffer standardize(const Buffer& x, int64_t n, double eps, const Buffer* w, const Buffer* b, Channel channel) {
  Buffer y(x.size());
  for (size_t g = 0; g < x.size() / size_t(n); ++g) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < n; ++i) mean += x[g * n + i];
    mean /= double(n);
    for (int64_t i = 0; i < n; ++i) var += (x[g * n + i] - mean) * (x[g * n + i] - mean);
    var /= double(n);
    const double inv = 1.0 / std::sqrt(var + eps);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t ch = channel(int64_t(g), i);
      y[g * n + i] = (x[g * n + i] - mean) * inv * (w ? (*w)[ch] : 1.0) + (b ? (*b)[ch] : 0.0);
    }
  }
  return y;
}

// ---- axis helpers ----------------------------------------------------------------------

struct Axis {
  int64_t outer, len, inner;
  int64_t at(int64_t o, int64_t k, int64_t i) const { return (o * len + k) * inner + i; }
};
Axis axis_of(const Shape& s, int64_t dim) {
  const size_t d = size_t(norm_axis(dim, s.size()));
  if (s.empty()) return {1, 1, 1};
  return {prod(s, 0, d), s[d], prod(s, d + 1)};
}

// The reduced axes (all when `dims` is none) as flags per axis.
std::vector<bool> reduced_axes(const Shape& s, const std::optional<std::vector<int64_t>>& dims) {
  std::vector<bool> red(s.size(), !dims.has_value());
  if (dims)
    for (int64_t d : *dims) red[size_t(norm_axis(d, s.size()))] = true;
  return red;
}

// For each input element, the index of the output element it reduces into.
std::vector<int64_t> reduce_map(const Shape& s, const std::vector<bool>& red) {
  std::vector<int64_t> map(size_t(prod(s)));
  std::vector<int64_t> idx(s.size(), 0);
  for (size_t e = 0; e < map.size(); ++e) {
    int64_t o = 0;
    for (size_t d = 0; d < s.size(); ++d)
      if (!red[d]) o = o * s[d] + idx[d];
    map[e] = o;
    for (size_t d = s.size(); d-- > 0;) {
      if (++idx[d] < s[d]) break;
      idx[d] = 0;
    }
  }
  return map;
}
int64_t reduced_numel(const Shape& s, const std::vector<bool>& red) {
  int64_t n = 1;
  for (size_t d = 0; d < s.size(); ++d)
    if (!red[d]) n *= s[d];
  return n;
}

// numpy broadcasting of a and b into `out`.
template <class F>
Buffer broadcast(const Buffer& a, const Shape& sa, const Buffer& b, const Shape& sb, const Shape& out, F f) {
  const size_t r = out.size();
  auto strides_for = [&](const Shape& s) {
    std::vector<int64_t> st(r, 0);
    int64_t stride = 1;
    for (size_t i = 0; i < s.size(); ++i) {
      const size_t d = s.size() - 1 - i, od = r - 1 - i;
      st[od] = s[d] == 1 ? 0 : stride;
      stride *= s[d];
    }
    return st;
  };
  const auto st_a = strides_for(sa), st_b = strides_for(sb);
  Buffer y(size_t(prod(out)));
  std::vector<int64_t> idx(r, 0);
  for (size_t e = 0; e < y.size(); ++e) {
    int64_t ia = 0, ib = 0;
    for (size_t d = 0; d < r; ++d) {
      ia += idx[d] * st_a[d];
      ib += idx[d] * st_b[d];
    }
    y[e] = f(a[size_t(ia)], b[size_t(ib)]);
    for (size_t d = r; d-- > 0;) {
      if (++idx[d] < out[d]) break;
      idx[d] = 0;
    }
  }
  return y;
}

// ---- matmul ----------------------------------------------------------------------------

// y[M, N] = op(a) @ op(b); a is [M, K] (or [K, M] when ta), b [K, N] (or [N, K] when tb).
Buffer matmul(const double* a, const double* b, int64_t M, int64_t N, int64_t K, bool ta, bool tb) {
  Buffer y(size_t(M * N));
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += (ta ? a[k * M + m] : a[m * K + k]) * (tb ? b[n * K + k] : b[k * N + n]);
      y[size_t(m * N + n)] = acc;
    }
  return y;
}

// softmax(scores) @ values over the keys that `visible` admits, for one query row.
void attend(const double* q, int64_t D, double scale, int64_t keys, const std::vector<const double*>& k,
            const std::vector<const double*>& v, double* o) {
  std::vector<double> s(static_cast<size_t>(keys));
  double mx = -std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < keys; ++j) {
    double dot = 0;
    for (int64_t d = 0; d < D; ++d) dot += q[d] * k[size_t(j)][d];
    s[size_t(j)] = dot * scale;
    mx = std::max(mx, s[size_t(j)]);
  }
  double sum = 0;
  for (auto& x : s) sum += (x = std::exp(x - mx));
  for (int64_t d = 0; d < D; ++d) {
    double acc = 0;
    for (int64_t j = 0; j < keys; ++j) acc += s[size_t(j)] * v[size_t(j)][d];
    o[d] = acc / sum;
  }
}

}  // namespace

Buffer round_to(tileops::DType dtype, const Buffer& values) {
  tileops::Tensor t = tileops::Tensor::empty({int64_t(values.size())}, dtype);
  tileops::tooling::fill_from_doubles(t, values);
  return tileops::tooling::to_doubles(t);
}

std::vector<Buffer> reference(const OpCase& c, const std::vector<Buffer>& in) {
  const std::string& op = c.op;
  const Shape& s0 = c.inputs[0].shape;
  const tileops::DType t0 = c.inputs[0].dtype;
  auto present = [&](size_t i) { return c.inputs[i].present ? &in[i] : nullptr; };

  if (op == "RMSNormFwdOp") {
    const auto ns = c.get<std::vector<int64_t>>("normalized_shape", {});
    const double eps = c.opt<double>("eps").value_or(finfo_eps(t0));
    return {rms_norm(in[0], present(1), prod(ns), eps)};
  }
  if (op == "FusedAddRMSNormFwdOp") {
    const auto ns = c.get<std::vector<int64_t>>("normalized_shape", {});
    Buffer sum(in[0].size());
    for (size_t i = 0; i < sum.size(); ++i) sum[i] = in[0][i] + in[1][i];
    Buffer residual = round_to(t0, sum);  // residual += x, stored in T
    return {rms_norm(residual, present(2), prod(ns), c.get<double>("eps", 1e-6)), residual};
  }
  if (op == "LayerNormFwdOp") {
    const int64_t n = prod(c.get<std::vector<int64_t>>("normalized_shape", {}));
    return {standardize(in[0], n, c.get<double>("eps", 1e-5), present(1), present(2),
                        [](int64_t, int64_t i) { return i; })};
  }
  if (op == "GroupNormFwdOp") {
    const int64_t C = s0[1], G = c.get<int64_t>("num_groups", 1), spatial = prod(s0, 2);
    const int64_t per_group = C / G * spatial;
    return {standardize(in[0], per_group, c.get<double>("eps", 1e-5), present(1), present(2),
                        [&](int64_t g, int64_t i) { return (g % G) * (C / G) + i / spatial; })};
  }
  if (op == "SoftmaxFwdOp" || op == "LogSoftmaxFwdOp") {
    const Axis ax = axis_of(s0, c.get<int64_t>("dim", -1));
    Buffer y(in[0].size());
    for (int64_t o = 0; o < ax.outer; ++o)
      for (int64_t i = 0; i < ax.inner; ++i) {
        double mx = -std::numeric_limits<double>::infinity(), sum = 0;
        for (int64_t k = 0; k < ax.len; ++k) mx = std::max(mx, in[0][ax.at(o, k, i)]);
        for (int64_t k = 0; k < ax.len; ++k) sum += std::exp(in[0][ax.at(o, k, i)] - mx);
        for (int64_t k = 0; k < ax.len; ++k) {
          const double z = in[0][ax.at(o, k, i)] - mx;
          y[ax.at(o, k, i)] = op == "SoftmaxFwdOp" ? std::exp(z) / sum : z - std::log(sum);
        }
      }
    return {y};
  }
  if (op == "SumFwdOp" || op == "MeanFwdOp" || op == "AmaxFwdOp") {
    const auto red = reduced_axes(s0, c.opt<std::vector<int64_t>>("dim"));
    const auto map = reduce_map(s0, red);
    const int64_t n_out = reduced_numel(s0, red);
    const bool amax = op == "AmaxFwdOp";
    Buffer y(size_t(n_out), amax ? -std::numeric_limits<double>::infinity() : 0.0);
    for (size_t e = 0; e < map.size(); ++e)
      y[size_t(map[e])] = amax ? std::max(y[size_t(map[e])], in[0][e]) : y[size_t(map[e])] + in[0][e];
    if (op == "MeanFwdOp") {
      const double count = double(prod(s0)) / double(n_out);
      for (auto& v : y) v /= count;
    }
    return {y};
  }
  if (op == "ArgmaxFwdOp") {
    const auto dim = c.opt<int64_t>("dim");
    if (!dim) {
      const auto best = std::max_element(in[0].begin(), in[0].end());  // the first maximum
      return {{double(best - in[0].begin())}};
    }
    const Axis ax = axis_of(s0, *dim);
    Buffer y(size_t(ax.outer * ax.inner));
    for (int64_t o = 0; o < ax.outer; ++o)
      for (int64_t i = 0; i < ax.inner; ++i) {
        int64_t best = 0;
        for (int64_t k = 1; k < ax.len; ++k)
          if (in[0][ax.at(o, k, i)] > in[0][ax.at(o, best, i)]) best = k;
        y[size_t(o * ax.inner + i)] = double(best);
      }
    return {y};
  }
  if (op == "CumsumFwdOp") {
    const Axis ax = axis_of(s0, c.get<int64_t>("dim", 0));
    Buffer y(in[0].size());
    for (int64_t o = 0; o < ax.outer; ++o)
      for (int64_t i = 0; i < ax.inner; ++i) {
        double acc = 0;
        for (int64_t k = 0; k < ax.len; ++k) y[ax.at(o, k, i)] = (acc += in[0][ax.at(o, k, i)]);
      }
    return {y};
  }
  auto map1 = [&](double (*f)(double)) {
    Buffer y(in[0].size());
    std::transform(in[0].begin(), in[0].end(), y.begin(), f);
    return std::vector<Buffer>{y};
  };
  if (op == "ReluFwdOp") return map1([](double x) { return std::max(x, 0.0); });
  if (op == "SiluFwdOp") return map1(silu);
  if (op == "SigmoidFwdOp") return map1(sigmoid);
  const bool tanh_form = c.get<std::string>("approximate", "none") == "tanh";
  if (op == "GeluFwdOp") {
    Buffer y(in[0].size());
    for (size_t i = 0; i < y.size(); ++i) y[i] = gelu(in[0][i], tanh_form);
    return {y};
  }
  if (op == "SiluAndMulFwdOp" || op == "GeluAndMulFwdOp") {
    const int64_t n = s0.back() / 2, rows = prod(s0) / s0.back();
    Buffer y(size_t(rows * n));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t i = 0; i < n; ++i) {
        const double g = in[0][size_t(r * 2 * n + i)], u = in[0][size_t(r * 2 * n + n + i)];
        y[size_t(r * n + i)] = (op == "SiluAndMulFwdOp" ? silu(g) : gelu(g, tanh_form)) * u;
      }
    return {y};
  }
  if (op == "AddFwdOp" || op == "MulFwdOp") {
    const double alpha = c.get<double>("alpha", 1.0);
    const bool add = op == "AddFwdOp";
    return {broadcast(in[0], s0, in[1], c.inputs[1].shape, c.outputs[0].shape,
                      [&](double a, double b) { return add ? a + alpha * b : a * b; })};
  }
  if (op == "RoPEFwdOp") {
    const int64_t H = s0[s0.size() - 2], D = s0.back(), R = c.inputs[2].shape[1];
    const int64_t tokens = prod(s0) / (H * D), half = R / 2;
    const bool neox = c.get<std::string>("layout", "neox") == "neox";
    Buffer y = in[0];
    for (int64_t t = 0; t < tokens; ++t) {
      const auto p = int64_t(in[1][size_t(t)]);
      const double* cs = &in[2][size_t(p * R)];
      for (int64_t h = 0; h < H; ++h) {
        const size_t base = size_t((t * H + h) * D);
        for (int64_t i = 0; i < half; ++i) {
          const size_t i1 = base + size_t(neox ? i : 2 * i), i2 = base + size_t(neox ? i + half : 2 * i + 1);
          const double x1 = in[0][i1], x2 = in[0][i2], cos = cs[i], sin = cs[half + i];
          y[i1] = x1 * cos - x2 * sin;
          y[i2] = x2 * cos + x1 * sin;
        }
      }
    }
    return {y};
  }
  if (op == "GemmFwdOp") {
    const bool ta = c.get<bool>("trans_a", false), tb = c.get<bool>("trans_b", false);
    const int64_t M = ta ? s0[1] : s0[0], K = ta ? s0[0] : s0[1];
    const auto& sb = c.inputs[1].shape;
    const int64_t N = tb ? sb[0] : sb[1];
    return {matmul(in[0].data(), in[1].data(), M, N, K, ta, tb)};
  }
  if (op == "BmmFwdOp") {
    const int64_t B = s0[0], M = s0[1], K = s0[2], N = c.inputs[1].shape[2];
    Buffer y;
    for (int64_t b = 0; b < B; ++b) {
      Buffer yb = matmul(&in[0][size_t(b * M * K)], &in[1][size_t(b * K * N)], M, N, K, false, false);
      y.insert(y.end(), yb.begin(), yb.end());
    }
    return {y};
  }
  if (op == "GroupedQueryAttentionFwdOp") {
    const int64_t Bs = s0[0], Hq = s0[1], Sq = s0[2], D = s0[3];
    const int64_t Hkv = c.inputs[1].shape[1], Skv = c.inputs[1].shape[2];
    const double scale = c.opt<double>("scale").value_or(1.0 / std::sqrt(double(D)));
    const bool causal = c.get<bool>("is_causal", false);
    Buffer o(in[0].size());
    for (int64_t b = 0; b < Bs; ++b)
      for (int64_t h = 0; h < Hq; ++h) {
        const int64_t g = h / (Hq / Hkv);
        std::vector<const double*> k, v;
        for (int64_t j = 0; j < Skv; ++j) {
          k.push_back(&in[1][size_t(((b * Hkv + g) * Skv + j) * D)]);
          v.push_back(&in[2][size_t(((b * Hkv + g) * Skv + j) * D)]);
        }
        for (int64_t i = 0; i < Sq; ++i) {
          const int64_t keys = causal ? std::min(i + 1, Skv) : Skv;  // top-left aligned
          const size_t row = size_t(((b * Hq + h) * Sq + i) * D);
          attend(&in[0][row], D, scale, keys, k, v, &o[row]);
        }
      }
    return {o};
  }
  if (op == "GroupedQueryAttentionDecodePagedFwdOp") {
    const int64_t Bs = s0[0], Hq = s0[1], D = s0[2];
    const auto& kc = c.inputs[1].shape;
    const int64_t BS = kc[1], Hkv = kc[2], MB = c.inputs[3].shape[1];
    const double scale = c.opt<double>("scale").value_or(1.0 / std::sqrt(double(D)));
    Buffer o(in[0].size());
    for (int64_t b = 0; b < Bs; ++b) {
      const auto len = int64_t(in[4][size_t(b)]);
      for (int64_t h = 0; h < Hq; ++h) {
        const int64_t g = h / (Hq / Hkv);
        std::vector<const double*> k, v;
        for (int64_t t = 0; t < len; ++t) {
          const auto block = int64_t(in[3][size_t(b * MB + t / BS)]);
          const size_t at = size_t(((block * BS + t % BS) * Hkv + g) * D);
          k.push_back(&in[1][at]);
          v.push_back(&in[2][at]);
        }
        attend(&in[0][size_t((b * Hq + h) * D)], D, scale, len, k, v, &o[size_t((b * Hq + h) * D)]);
      }
    }
    return {o};
  }
  if (op == "SwiGLUMLPFwdOp") {
    // The composition's intermediates are tensors of T: round them as it does.
    const int64_t M = s0[0], Hd = s0[1], I = c.inputs[2].shape[1];
    Buffer gate_up = round_to(t0, matmul(in[0].data(), in[1].data(), M, 2 * I, Hd, false, true));
    Buffer act(size_t(M * I));
    for (int64_t m = 0; m < M; ++m)
      for (int64_t i = 0; i < I; ++i)
        act[size_t(m * I + i)] = silu(gate_up[size_t(m * 2 * I + i)]) * gate_up[size_t(m * 2 * I + I + i)];
    act = round_to(t0, act);
    return {matmul(act.data(), in[2].data(), M, Hd, I, false, true)};
  }
  throw std::invalid_argument("no reference for " + op);
}

}  // namespace conformance
