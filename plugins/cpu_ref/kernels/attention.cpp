#include "kernels/attention.hpp"

#include "numeric.hpp"

#include <tileops/sdk/plugin.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace tileops::cpu_ref {

namespace {

// out = softmax(scale * keys @ q) @ values over the first n_keys rows of keys and values
// ([n_keys, d] row-major doubles); zeros when n_keys is 0.
void attend(const double* q, const double* keys, const double* values, int64_t n_keys,
            int64_t d, double scale, std::vector<double>& scores, double* out) {
  std::fill(out, out + d, 0.0);
  if (n_keys == 0) return;
  scores.resize(size_t(n_keys));
  double max = -std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < n_keys; ++j) {
    double dot = 0;
    for (int64_t c = 0; c < d; ++c) dot += q[c] * keys[j * d + c];
    scores[size_t(j)] = scale * dot;
    max = std::max(max, scores[size_t(j)]);
  }
  double sum = 0;
  for (int64_t j = 0; j < n_keys; ++j) sum += scores[size_t(j)] = std::exp(scores[size_t(j)] - max);
  for (int64_t j = 0; j < n_keys; ++j) {
    const double w = scores[size_t(j)] / sum;
    for (int64_t c = 0; c < d; ++c) out[c] += w * values[j * d + c];
  }
}

template <class T>
void load(const T* src, int64_t n, double* dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] = to_double(src[i]);
}

template <class T>
void store(const double* src, int64_t n, T* dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] = from_double<T>(src[i]);
}

void check_paged_metadata(const int32_t* block_table, const int32_t* seq_lens,
                          const PagedDecodeShape& s) {
  const std::string op = "cpu_ref GroupedQueryAttentionDecodePagedFwdOp: ";
  const int64_t capacity = s.max_blocks * s.block_size;
  for (int64_t b = 0; b < s.batch; ++b) {
    const int64_t len = seq_lens[b];
    if (len < 1 || len > capacity)
      sdk::invalid(op + "seq_lens[" + std::to_string(b) + "] = " + std::to_string(len) +
                   " is outside [1, " + std::to_string(capacity) +
                   "] (block_table's row of " + std::to_string(s.max_blocks) + " blocks of " +
                   std::to_string(s.block_size) + " tokens)");
    const int64_t used = (len + s.block_size - 1) / s.block_size;
    for (int64_t i = 0; i < used; ++i) {
      const int64_t id = block_table[b * s.max_blocks + i];
      if (id < 0 || id >= s.num_blocks)
        sdk::invalid(op + "block_table[" + std::to_string(b) + ", " + std::to_string(i) +
                     "] = " + std::to_string(id) + " is outside [0, " +
                     std::to_string(s.num_blocks) + "), the blocks of k_cache and v_cache");
    }
  }
}

}  // namespace

template <class T>
void gqa_attention(const T* q, const T* k, const T* v, T* o, const AttentionShape& s,
                   bool is_causal, double scale) {
  const int64_t d = s.head_dim;
  const int64_t group = s.q_heads / s.kv_heads;
  std::vector<double> keys(static_cast<size_t>(s.kv_len * d)), values(keys.size());
  std::vector<double> q_row(static_cast<size_t>(d)), out(static_cast<size_t>(d)), scores;
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t hk = 0; hk < s.kv_heads; ++hk) {
      const int64_t kv_offset = (b * s.kv_heads + hk) * s.kv_len * d;
      load(k + kv_offset, s.kv_len * d, keys.data());
      load(v + kv_offset, s.kv_len * d, values.data());
      for (int64_t hq = hk * group; hq < (hk + 1) * group; ++hq) {
        for (int64_t i = 0; i < s.q_len; ++i) {
          const int64_t q_offset = ((b * s.q_heads + hq) * s.q_len + i) * d;
          load(q + q_offset, d, q_row.data());
          const int64_t visible = is_causal ? std::min(i + 1, s.kv_len) : s.kv_len;
          attend(q_row.data(), keys.data(), values.data(), visible, d, scale, scores,
                 out.data());
          store(out.data(), d, o + q_offset);
        }
      }
    }
  }
}

template <class T>
void gqa_decode_paged(const T* q, const T* k_cache, const T* v_cache,
                      const int32_t* block_table, const int32_t* seq_lens, T* o,
                      const PagedDecodeShape& s, double scale) {
  check_paged_metadata(block_table, seq_lens, s);
  const int64_t d = s.head_dim;
  const int64_t group = s.q_heads / s.kv_heads;
  std::vector<double> keys, values, q_row(static_cast<size_t>(d)), out(static_cast<size_t>(d)), scores;
  for (int64_t b = 0; b < s.batch; ++b) {
    const int64_t len = seq_lens[b];
    keys.resize(size_t(len * d));
    values.resize(keys.size());
    for (int64_t hk = 0; hk < s.kv_heads; ++hk) {
      // gather the sequence's keys and values of this kv head, token by token
      for (int64_t t = 0; t < len; ++t) {
        const int64_t block = block_table[b * s.max_blocks + t / s.block_size];
        const int64_t offset = ((block * s.block_size + t % s.block_size) * s.kv_heads + hk) * d;
        load(k_cache + offset, d, keys.data() + t * d);
        load(v_cache + offset, d, values.data() + t * d);
      }
      for (int64_t hq = hk * group; hq < (hk + 1) * group; ++hq) {
        const int64_t q_offset = (b * s.q_heads + hq) * d;
        load(q + q_offset, d, q_row.data());
        attend(q_row.data(), keys.data(), values.data(), len, d, scale, scores, out.data());
        store(out.data(), d, o + q_offset);
      }
    }
  }
}

#define CPU_REF_INSTANTIATE(T)                                                             \
  template void gqa_attention<T>(const T*, const T*, const T*, T*, const AttentionShape&,   \
                                 bool, double);                                            \
  template void gqa_decode_paged<T>(const T*, const T*, const T*, const int32_t*,          \
                                    const int32_t*, T*, const PagedDecodeShape&, double);
CPU_REF_INSTANTIATE(float)
CPU_REF_INSTANTIATE(f16)
CPU_REF_INSTANTIATE(bf16)
#undef CPU_REF_INSTANTIATE

}  // namespace tileops::cpu_ref
