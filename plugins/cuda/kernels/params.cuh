// Kernel parameter blocks: the one layout the host (g++) and the kernels (NVRTC) share.
//
// Plain C++ with builtin types only, so both compilers see the same sizes and offsets
// (long long is 8 bytes, pointers 8 bytes on every supported host and device). Every
// kernel takes exactly one of these by value; the host passes its address to
// cuLaunchKernel. Also fast_div, the division by a FastDiv, which both sides compute.
#pragma once

namespace tileops_cuda {

// Most dims a strided gather, a general reduction or a broadcast can have after
// coalescing (what the host merges into fewer dims never reaches a kernel).
#define TILEOPS_CUDA_MAX_DIMS 8

// The most CTAs a cluster the host launches has (the portable cluster size); kernels
// whose CTAs send their totals to one another size their inboxes by it.
#define TILEOPS_CUDA_MAX_CLUSTER 8

// What a kernel template computes, as a template argument: the host picks it (ops/*.cpp)
// and spells it into the kernel's name; one numbering for both compilers.
enum Activation { kRelu = 0, kGelu = 1, kGeluTanh = 2, kSilu = 3, kSigmoid = 4 };
enum BinaryOp { kAdd = 0, kMul = 1 };
enum NormKind { kRms = 0, kFusedAddRms = 1, kLayer = 2, kGroup = 3 };
// The order in which cumsum_row's CTAs take a row's tiles (cumsum.cuh, RowTileSpan).
enum TileOrder { kRowMajor = 0, kPartMajor = 1 };
// The affine inputs a norm kernel is compiled for (its AFFINE template argument: the
// sum of those present, 0 for none): the host knows them when it builds the kernel. A
// kernel that tested the pointers instead held a copy of its write loop for each case,
// and took NVRTC a third longer to build (LayerNorm f16: 165 against 120 ms).
enum NormAffine { kWeight = 1, kBias = 2 };
enum ReduceKind { kSum = 0, kMean = 1, kAmax = 2, kArgmax = 3 };

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
#define TILEOPS_CUDA_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define TILEOPS_CUDA_HOST_DEVICE inline
#endif

// 32-bit division by a constant through a multiply and a shift (valid for numerators
// and divisors below 2^31). The host fills it with make_fast_div (ops/common.hpp).
struct FastDiv {
  unsigned divisor;
  unsigned mul;    // 0 for divisor 1
  unsigned shift;
};

// n / d.divisor; on the host too, for the tests of what kernels compute with it. The
// multiply stays inside the test of d.mul: taken out of it, ptxas scheduled rope's
// index arithmetic differently and full-rotary 16-bit rows lost 3.5% on the H200.
TILEOPS_CUDA_HOST_DEVICE unsigned fast_div(unsigned n, FastDiv d) {
#ifdef __CUDA_ARCH__
  return d.mul == 0 ? n : __umulhi(n, d.mul) >> d.shift;
#else
  return d.mul == 0 ? n : unsigned((unsigned long long)n * d.mul >> 32) >> d.shift;
#endif
}

// Where a kernel reports a value error it detects (a RoPE position outside the cache).
// `host` is page-locked host memory mapped into the device; `claim` a word of device
// memory. The protocol is in kernels/common.cuh (raise_value_error) and
// src/value_errors.hpp.
struct ValueErrorRecord {
  unsigned epoch;   // written by the host: reports consumed so far
  unsigned raised;  // written by a kernel: epoch + 1 when a report waits
  int code;         // what was detected (kValueErrorPosition)
  int pad;
  long long index;  // flat index of the offending element
  long long value;  // the value found there
  long long bound;  // the exclusive upper bound it broke
};
struct ValueErrorSlot {
  ValueErrorRecord* host;
  unsigned* claim;
};
#define TILEOPS_CUDA_ERROR_POSITION 1

// RMSNorm, fused add + RMSNorm, LayerNorm, GroupNorm: `rows` independent rows of `cols`
// contiguous elements (a GroupNorm row is one (sample, group)).
struct NormParams {
  const void* x;
  void* residual;      // fused add only: read, replaced by x + residual
  const void* weight;  // null when absent
  const void* bias;    // null when absent
  void* y;
  long long rows;
  long long cols;
  FastDiv channel_size;          // GroupNorm: elements per channel (prod(S)); cols < 2^31
  FastDiv groups;                // GroupNorm: num_groups; rows < 2^31
  int channels_per_group;        // GroupNorm: C / num_groups
  float eps;
  // norm_queue (kernels/norm.cuh): `counters` holds the next work item (word 0), each
  // row's arrived statistics items (words 1 .. rows), each row's ready flag (words rows +
  // 1 .. 2 rows), zeroed by zero_words; `sums` the statistics items' Sum2 [rows][pieces];
  // `stats` each row's (mean, scale). norm_grid: `counters` holds each row's arrived CTAs
  // (words 0 .. rows - 1), zeroed by zero_words; `sums` their slices' Sum2 [rows][span].
  unsigned* counters;
  void* sums;
  void* stats;
  FastDiv pieces;  // norm_queue: work items of each kind a row
  FastDiv pairs;   // norm_queue: 2 * pieces, a row's statistics and normalisation items
  int lag;         // norm_queue: rows the statistics items run ahead of the normalisation items
  int span;        // norm_grid: CTAs a row
  int stagger_ns;  // norm_grid: odd spans start this late
};
// Vectors in one norm_queue work item (a piece of a row): 32 KB, eight vectors a thread
// (GroupNorm VAE bf16: 0.72 of copy; pieces of 1024 vectors 0.66).
#define TILEOPS_CUDA_QUEUE_VECS 2048

// Softmax and log-softmax of x viewed as [outer, len, inner] along len.
struct SoftmaxParams {
  const void* x;
  void* y;
  long long outer;
  long long len;
  long long inner;
};

// Sum, mean, amax, argmax of x viewed as [outer, len, inner] along len, or (general
// form) over arbitrary axes. With splits > 1 each CTA reduces `chunk` elements (vectors
// for the row form) and writes its partial to `partial`; a finalize kernel combines them.
struct ReduceParams {
  const void* x;
  void* y;
  void* partial;
  long long outer;
  long long len;
  long long inner;
  long long chunk;
  int splits;
  int pad;
  float scale;  // mean: 1 / len; otherwise 1
  // General form: output element o -> kept offsets; reduced index -> reduced offsets.
  int kept_ndim;
  int red_ndim;
  long long kept_shape[TILEOPS_CUDA_MAX_DIMS];
  long long kept_stride[TILEOPS_CUDA_MAX_DIMS];
  long long red_shape[TILEOPS_CUDA_MAX_DIMS];
  long long red_stride[TILEOPS_CUDA_MAX_DIMS];
};

// `count` words at `words`, zeroed by zero_words (kernels/zero_words.cuh).
struct ZeroParams {
  void* words;
  long long count;
};

// Inclusive cumulative sum of x viewed as [outer, len, inner] along len, as chained
// scans: len is cut into `chain` tiles (CTAs) that follow one another; each tile adds the
// totals of the tiles before it, found through `status` (kernels/cumsum.cuh says how).
// The column form also cuts inner into `col_blocks` blocks of columns. Grid: `tiles` =
// outer * chain (* col_blocks) CTAs. With chain == 1 `status` is unused.
struct ScanParams {
  const void* x;
  void* y;
  void* status;
  void* totals;  // rows in two passes: the tile totals (cumsum_tile_totals); else null
  long long outer;
  long long len;
  long long inner;
  long long tiles;
  long long chain;
  long long col_blocks;
};

// One input, one output, n elements.
struct UnaryParams {
  const void* x;
  void* y;
  long long n;
};

// act(x[r, :n]) * x[r, n:] for rows r of 2n elements; `n_vec` = n / V as a FastDiv.
struct GatedParams {
  const void* x;
  void* y;
  long long rows;
  long long n;
  FastDiv n_vec;
};

// y = a op b over [rows, cols]: each operand has its own row stride and a column stride
// of 0 (broadcast along the row) or 1. `cols_vec` = cols / V as a FastDiv. The ND form
// (ndim > 0) uses shape and strides instead, element by element.
struct BinaryParams {
  const void* a;
  const void* b;
  void* y;
  long long rows;
  long long cols;
  long long a_row_stride;
  long long b_row_stride;
  int a_col_stride;
  int b_col_stride;
  FastDiv cols_vec;
  float alpha;
  int pad;
  long long alpha_int;
  int ndim;
  int pad2;
  long long shape[TILEOPS_CUDA_MAX_DIMS];
  long long a_stride[TILEOPS_CUDA_MAX_DIMS];
  long long b_stride[TILEOPS_CUDA_MAX_DIMS];
};

// Rotary embedding of x [tokens, heads, head_dim]; `units` work items per head as a
// FastDiv (rotation units then pass-through units), `heads_units` = heads * units.
struct RopeParams {
  const void* x;
  const void* positions;
  const float* cache;
  void* y;
  long long tokens;
  long long heads;
  long long head_dim;
  long long rot_dim;
  long long max_positions;
  FastDiv units;
  FastDiv heads_units;
  int rot_units;   // a head's rotation units
  int pass_units;  // a head's pass-through units (R < head_dim)
  ValueErrorSlot error;
};

// dst[i] = src[i] where both sides are strided views of the same logical shape.
struct CopyParams {
  const void* src;
  void* dst;
  long long n;
  int ndim;
  int pad;
  long long shape[TILEOPS_CUDA_MAX_DIMS];
  long long src_stride[TILEOPS_CUDA_MAX_DIMS];  // elements
  long long dst_stride[TILEOPS_CUDA_MAX_DIMS];
};

}  // namespace tileops_cuda
