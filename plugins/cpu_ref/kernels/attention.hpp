#pragma once
// Attention with grouped query heads: query head h reads kv head h / (q_heads / kv_heads).
// Scores, softmax and the weighted sum are computed in double. T: float, f16, bf16.
#include <cstdint>

namespace tileops::cpu_ref {

struct AttentionShape {
  int64_t batch = 1;
  int64_t q_heads = 1;
  int64_t kv_heads = 1;
  int64_t q_len = 1;
  int64_t kv_len = 1;
  int64_t head_dim = 1;
};

// torch scaled_dot_product_attention(enable_gqa=True) on q [batch, q_heads, q_len,
// head_dim], k and v [batch, kv_heads, kv_len, head_dim]; o like q. Causal masking is
// top-left aligned: query i sees keys j <= i. A query that sees no key gets zeros.
template <class T>
void gqa_attention(const T* q, const T* k, const T* v, T* o, const AttentionShape& shape,
                   bool is_causal, double scale);

struct PagedDecodeShape {
  int64_t batch = 1;
  int64_t q_heads = 1;
  int64_t kv_heads = 1;
  int64_t head_dim = 1;
  int64_t num_blocks = 1;       // NB: blocks in the caches
  int64_t block_size = 1;       // BS: tokens per block
  int64_t max_blocks = 1;       // MB: block_table's row length
};

// Decode attention over a paged KV cache (vLLM paged attention): q [batch, q_heads,
// head_dim] attends to the seq_lens[b] tokens of sequence b, token t living in block
// block_table[b, t / BS], slot t % BS, of k_cache and v_cache [NB, BS, kv_heads,
// head_dim]; o like q. A seq_lens value outside [1, MB * BS], or a block id the
// sequence reads outside [0, NB), fails with sdk::invalid naming its index and value,
// before anything is written.
template <class T>
void gqa_decode_paged(const T* q, const T* k_cache, const T* v_cache,
                      const int32_t* block_table, const int32_t* seq_lens, T* o,
                      const PagedDecodeShape& shape, double scale);

}  // namespace tileops::cpu_ref
