// Every op of the CUDA plugin, every dtype it takes, against cpu_ref on fresh random
// inputs: ordinary and odd sizes (lengths that are not a multiple of the vector width,
// one row, empty tensors, rows of 64k+ elements), every kernel form (rows in registers,
// clusters, loops, columns, splits, the general reduction), non-contiguous inputs, and
// inputs one element into their buffers (every family's fallback kernels).
#include "gpu_support.hpp"

#include <cmath>
#include <cstdlib>
#include <optional>

namespace {

using namespace tileops;
using namespace tileops::cuda_test;
using Shape = std::vector<int64_t>;

const DType kFloats[] = {dtypes::float32, dtypes::float16, dtypes::bfloat16};
const DType kFloatsAndInts[] = {dtypes::float32, dtypes::float16, dtypes::bfloat16, dtypes::int32, dtypes::int64};

// Fresh inputs every run, from a seed the log names so that a failure can be repeated.
std::mt19937& rng() {
  static std::mt19937 r([] {
    const char* fixed = std::getenv("TILEOPS_TEST_SEED");
    const unsigned seed = fixed ? unsigned(std::strtoul(fixed, nullptr, 10)) : std::random_device{}();
    MESSAGE("random inputs from seed " << seed << " (TILEOPS_TEST_SEED=" << seed << " repeats them)");
    return seed;
  }());
  return r;
}

Tensor rand(Shape shape, DType d) { return random_tensor(std::move(shape), d, rng()); }

std::string describe(const Shape& s, DType d) {
  std::string out = std::string(d.name()) + " [";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

// RoPE's cos/sin cache [positions, rot_dim] (cos in the first half of a row, sin in the
// second), base 10000, fp32.
Tensor rope_cache(int64_t positions, int64_t rot_dim) {
  std::vector<double> cache(size_t(positions * rot_dim));
  for (int64_t q = 0; q < positions; ++q)
    for (int64_t i = 0; i < rot_dim / 2; ++i) {
      const double angle = double(q) * std::pow(10000.0, -2.0 * double(i) / double(rot_dim));
      cache[size_t(q * rot_dim + i)] = std::cos(angle);
      cache[size_t(q * rot_dim + rot_dim / 2 + i)] = std::sin(angle);
    }
  return tensor_of({positions, rot_dim}, dtypes::float32, cache);
}

}  // namespace

TILEOPS_GPU_TEST_CASE("RMSNorm and fused add + RMSNorm") {
  struct Case {
    Shape x;
    Shape normalized;
    bool weight;
  };
  const Case cases[] = {
      {{3, 4096}, {4096}, true},      {{5, 1000}, {1000}, true},  {{1, 8192}, {8192}, false},
      {{0, 4096}, {4096}, true},      {{4, 8, 64}, {8, 64}, true}, {{2, 70000}, {70000}, true},
      {{2, 300000}, {300000}, false}, {{33, 24}, {24}, true},      {{6, 5}, {5}, false},
      // past a cluster's shared memory: 16-bit the queue form, fp32 (4 MB) the grid form
      // (fused add: the loop)
      {{3, 1048576}, {1048576}, true},
      // the grid form, two CTAs an SM: fp32 holding 4 vectors a thread beside its slices
      {{1, 4194304}, {4194304}, true},
      // past the GPU's shared memory: one row of the queue, every statistics item, then
      // every normalisation
      {{1, 16777216}, {16777216}, false},
      {{0, 128256}, {128256}, true},    // no rows of a length that takes shared memory (planned as one)
  };
  for (DType d : kFloats)
    for (const Case& c : cases) {
      const Tensor w = c.weight ? rand(c.normalized, d) : Tensor();
      const std::string what = describe(c.x, d) + (c.weight ? " with weight" : "");
      check_against_cpu_ref("RMSNormFwdOp", {param("normalized_shape", c.normalized)}, {rand(c.x, d), w}, what);
      check_against_cpu_ref("RMSNormFwdOp", {param("normalized_shape", c.normalized), param("eps", 1e-5)}, {rand(c.x, d), w},
                            what + ", eps 1e-5");
      check_against_cpu_ref("FusedAddRMSNormFwdOp", {param("normalized_shape", c.normalized)},
                            {rand(c.x, d), rand(c.x, d), w}, what);
    }
  check_against_cpu_ref("RMSNormFwdOp", {{"normalized_shape", Shape{512}}},
                        {rand({64, 512}, dtypes::bfloat16), rand({512}, dtypes::bfloat16)}, "non-contiguous x",
                        Device("cuda", 0), InputLayout::kNonContiguous);
}

TILEOPS_GPU_TEST_CASE("fused add + RMSNorm writes a strided residual in place") {
  for (DType d : kFloats) {
    const Tensor x = rand({64, 256}, d), w = rand({256}, d);
    const Tensor residual_host = rand({256, 64}, d);  // transposed below: [64, 256], strided
    const Tensor residual = residual_host.to(Device("cuda", 0)).transpose(0, 1);
    Op op("FusedAddRMSNormFwdOp", {{"normalized_shape", Shape{256}}}, std::string(BUILTIN));
    const auto out = op({x.to(Device("cuda", 0)), residual, w.to(Device("cuda", 0))});
    Op ref("FusedAddRMSNormFwdOp", {{"normalized_shape", Shape{256}}}, std::string("cpu_ref"));
    const Tensor ref_residual = clone(residual_host).transpose(0, 1);
    const auto expected = ref({x, ref_residual, w});
    const auto got_y = values_of(out[0]), want_y = values_of(expected[0]);
    const auto got_r = values_of(residual), want_r = values_of(ref_residual);
    REQUIRE(got_r.size() == want_r.size());
    double diff = 0, norm = 0;
    for (size_t i = 0; i < got_r.size(); ++i) {
      diff += (got_r[i] - want_r[i]) * (got_r[i] - want_r[i]);
      norm += want_r[i] * want_r[i];
    }
    CHECK(std::sqrt(diff / norm) <= tolerance(d));
    diff = norm = 0;
    for (size_t i = 0; i < got_y.size(); ++i) {
      diff += (got_y[i] - want_y[i]) * (got_y[i] - want_y[i]);
      norm += want_y[i] * want_y[i];
    }
    CHECK(std::sqrt(diff / norm) <= tolerance(d));
  }
}

TILEOPS_GPU_TEST_CASE("LayerNorm") {
  struct Case {
    Shape x;
    Shape normalized;
    bool weight, bias;
  };
  // Each present/absent pair of weight and bias is a kernel of its own (NormAffine).
  const Case cases[] = {{{6, 4096}, {4096}, true, true},       {{3, 777}, {777}, false, false},
                        {{5, 4096}, {4096}, false, true},      {{4, 70000}, {70000}, false, true},
                        {{2, 100000}, {100000}, true, false},  {{1, 3, 1024}, {3, 1024}, true, true},
                        {{2, 400000}, {400000}, true, true},   {{0, 16}, {16}, true, true},
                        {{2, 1500000}, {1500000}, true, true},  // the queue form (fp32: the grid)
                        // fp32 past the GPU's shared memory: the queue form, a short last
                        // piece (16-bit: the grid form, one CTA an SM)
                        {{1, 9000000}, {9000000}, true, true},
                        {{200, 128256}, {128256}, true, true},  // clusters sweeping rows, as softmax's
                        // a cluster a row; fp32 holds 4 vectors a thread in registers
                        {{64, 140000}, {140000}, true, true}};
  for (DType d : kFloats)
    for (const Case& c : cases)
      check_against_cpu_ref("LayerNormFwdOp", {param("normalized_shape", c.normalized)},
                            {rand(c.x, d), c.weight ? rand(c.normalized, d) : Tensor(), c.bias ? rand(c.normalized, d) : Tensor()},
                            describe(c.x, d) + (c.weight ? " weight" : "") + (c.bias ? " bias" : ""));
}

TILEOPS_GPU_TEST_CASE("GroupNorm") {
  struct Case {
    Shape x;
    int64_t groups;
    bool weight, bias;
  };
  const Case cases[] = {{{2, 32, 8, 8}, 8, true, true},       {{1, 6, 7, 7}, 3, true, true},
                        {{2, 64, 32, 32}, 4, false, false},   {{1, 4, 256, 256}, 1, true, true},
                        {{3, 10}, 5, true, true},             {{2, 320, 16, 16}, 32, true, true},
                        {{2, 320, 16, 16}, 32, true, false},  {{2, 320, 16, 16}, 32, false, true},
                        // groups of 1M elements, past a cluster's shared memory: the queue
                        // form (fp32: the grid); then 1.28M, whose last piece is short
                        {{1, 256, 128, 128}, 4, true, true},  {{2, 64, 200, 200}, 2, true, true},
                        {{1, 256, 128, 128}, 4, false, true},
                        // SDXL's VAE: 32 groups of 2M elements: the grid form holding 4
                        // vectors a thread, spans in two staggered groups sweeping them
                        // (fp32: 4 spans of 64 CTAs, 8 groups each; 16-bit: 8 spans of
                        // 32, 4 each)
                        {{1, 256, 512, 512}, 32, true, true},
                        // groups of 4M elements: the grid form holding 4 vectors a thread,
                        // the 4 groups at once (fp32: 2 spans of 128 CTAs)
                        {{1, 64, 512, 512}, 4, true, false},
                        // a group of 16M elements, past the GPU's shared memory: the queue
                        {{1, 64, 512, 512}, 1, true, true},
                        // 140 groups of 128K elements in shared memory: clusters sweep them
                        // (16-bit with at most one affine input: 3 vectors a thread in
                        // registers, the next row's fetched during the write pass; with
                        // both, whose cap is 2, none)
                        {{35, 128, 64, 64}, 4, true, true},   {{35, 128, 64, 64}, 4, true, false},
                        {{35, 128, 64, 64}, 4, false, false}};
  for (DType d : kFloats)
    for (const Case& c : cases) {
      const Shape channel{c.x[1]};
      check_against_cpu_ref("GroupNormFwdOp", {param("num_groups", c.groups)},
                            {rand(c.x, d), c.weight ? rand(channel, d) : Tensor(), c.bias ? rand(channel, d) : Tensor()},
                            describe(c.x, d) + " groups " + std::to_string(c.groups) + (c.weight ? " weight" : "") +
                                (c.bias ? " bias" : ""));
    }
}

TILEOPS_GPU_TEST_CASE("softmax and log-softmax along any dim") {
  struct Case {
    Shape x;
    int64_t dim;
  };
  const Case cases[] = {{{4, 1000}, -1},   {{3, 128256}, -1}, {{2, 300000}, -1}, {{64, 33, 5}, 1},
                        {{8, 16}, 0},      {{7}, 0},          {{}, 0},           {{2, 3, 4096}, 1},
                        {{4096, 8}, 0},    {{5, 0}, 0},       {{16, 2048}, -1},  {{4100, 4096}, 0},
                        {{8, 1000, 2048}, 1},
                        // strips along dim 0 split over clusters of 2 ([4100, 4096]: of 8,
                        // [2, 3, 4096] dim 1: one CTA a strip)
                        {{2048, 8192}, 0},
                        // many long rows: the clusters the GPU holds sweep them, two to five
                        // rows a cluster (the slice's barrier reused past a parity wrap)
                        {{200, 128256}, -1},
                        // a cluster a row; fp32 holds 2 and 5 vectors a thread in registers
                        {{64, 128256}, -1}, {{64, 152064}, -1},
                        // empty along a dim other than the last: no column tiles (planned as one)
                        {{0, 5, 3}, 1}};
  for (const char* op : {"SoftmaxFwdOp", "LogSoftmaxFwdOp"})
    for (DType d : kFloats)
      for (const Case& c : cases)
        check_against_cpu_ref(op, {param("dim", c.dim)}, {rand(c.x, d)}, describe(c.x, d) + " dim " + std::to_string(c.dim));
  check_against_cpu_ref("SoftmaxFwdOp", {param("dim", int64_t(0))}, {rand({128, 96}, dtypes::float16)}, "non-contiguous",
                        Device("cuda", 0), InputLayout::kNonContiguous);
  // Masked rows: -1e4 but for one 0 a row. A thread sums exp(x - ref) against a reference
  // it took before seeing all its values (its held vectors' maximum in softmax_smem), so a
  // thread whose held vectors are all -1e4 and whose slice holds the 0 must sum again
  // against its own maximum, or exp(1e4) overflows its sum. [200, 128256]
  // sweeps in slices of two pieces, whose vectors fall to other threads than a walk of
  // the whole slice would give them (the second piece starts 2004 vectors in); [64,
  // 128256] takes a cluster a row, in one piece.
  for (const int64_t rows : {200, 64}) {
    const int64_t cols = 128256;
    std::vector<double> masked(size_t(rows * cols), -1e4);
    for (int64_t r = 0; r < rows; ++r) masked[size_t(r * cols + (r * 7919) % cols)] = 0.0;
    for (const char* op : {"SoftmaxFwdOp", "LogSoftmaxFwdOp"})
      for (DType d : kFloats)
        check_against_cpu_ref(op, {param("dim", int64_t(-1))}, {tensor_of({rows, cols}, d, masked)},
                              describe({rows, cols}, d) + " masked");
  }
}

TILEOPS_GPU_TEST_CASE("sum, mean, amax over any axes") {
  struct Case {
    Shape x;
    std::optional<Shape> dim;
    bool keepdim;
  };
  const Case cases[] = {
      {{64, 4096}, Shape{-1}, false},  {{8, 512, 256}, Shape{1}, false}, {{33, 17}, std::nullopt, false},
      {{4, 6, 8}, Shape{0, 2}, true},  {{2, 3, 0}, Shape{2}, false},     {{1000, 3}, Shape{0}, true},
      {{3, 1000003}, Shape{1}, false}, {{2048, 4096}, Shape{0}, false},   {{}, std::nullopt, false},
      {{5, 7, 9}, Shape{}, false},     {{16, 49}, Shape{1}, false},      {{2048, 4096}, std::nullopt, false},
      {{4, 64, 8192}, Shape{1}, false},  // columns enough to fill the GPU without a cluster
      {{1001, 49}, Shape{1}, false},     // short rows: 8 CTAs, the last one's run ends in single elements
      // short rows of a power-of-two number of words, which each thread walks from its
      // own starting element (unrotated, a warp's reads would share one bank)
      {{300, 64}, Shape{-1}, false},     {{129, 32}, Shape{1}, false},     {{130, 2}, Shape{1}, false},
  };
  for (const char* op : {"SumFwdOp", "MeanFwdOp", "AmaxFwdOp"})
    for (DType d : kFloatsAndInts) {
      if (!d.is_floating() && std::string(op) != "AmaxFwdOp") continue;
      for (const Case& c : cases) {
        int64_t n = 1;
        for (int64_t s : c.x) n *= s;
        if (n == 0 && std::string(op) == "AmaxFwdOp") continue;  // torch: amax of nothing is an error
        Params params{param("keepdim", c.keepdim)};
        params.emplace_back("dim", c.dim ? ParamValue(*c.dim) : none());
        if (std::string(op) == "AmaxFwdOp" || !d.is_floating())
          check_against_cpu_ref(op, params, {rand(c.x, d)}, describe(c.x, d));
        else
          check_sum_against_cpu_ref(op, params, rand(c.x, d), describe(c.x, d));
      }
    }
}

TILEOPS_GPU_TEST_CASE("argmax: first index of the maximum, NaN counting as the maximum") {
  struct Case {
    Shape x;
    std::optional<int64_t> dim;
    bool keepdim;
  };
  const Case cases[] = {{{64, 1000}, -1, false}, {{333, 77}, std::nullopt, false}, {{50, 40}, 0, true},
                        {{4, 128256}, -1, false}, {{3, 2000, 9}, 1, false},         {{7}, 0, false},
                        {{4096, 4096}, std::nullopt, false}};
  for (DType d : kFloatsAndInts)
    for (const Case& c : cases) {
      Params params{param("keepdim", c.keepdim)};
      params.emplace_back("dim", c.dim ? ParamValue(*c.dim) : none());
      check_against_cpu_ref("ArgmaxFwdOp", params, {rand(c.x, d)}, describe(c.x, d));
    }
  // Ties and NaN: the first NaN wins, then the first of equal maxima.
  const std::vector<double> v = {1, 5, 5, 2, std::nan(""), 7, std::nan(""), 5};
  check_against_cpu_ref("ArgmaxFwdOp", {param("dim", int64_t(-1)), param("keepdim", false)},
                        {tensor_of({2, 4}, dtypes::float32, v)}, "NaN and ties");
  // The same over rows long enough to split, and down columns: the maximum (or NaN)
  // recurs in other lanes, warps and CTAs, some of them read before the first
  // occurrence's.
  const int64_t n = int64_t(1) << 20;
  std::vector<double> ties(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) ties[size_t(i)] = double(i * 7919 % 1000);
  for (int64_t i : {n - 5, int64_t(700001), int64_t(123457), int64_t(999)}) ties[size_t(i)] = 1000;
  std::vector<double> nans = ties;
  for (int64_t i : {n - 3, int64_t(500000), int64_t(77777)}) nans[size_t(i)] = std::nan("");
  const std::pair<Shape, int64_t> walks[] = {{{n}, -1}, {{4, n / 4}, -1}, {{n / 64, 64}, 0}};
  for (DType d : kFloatsAndInts)
    for (const auto& [x, dim] : walks) {
      const Params params{param("dim", dim), param("keepdim", false)};
      check_against_cpu_ref("ArgmaxFwdOp", params, {tensor_of(x, d, ties)}, "ties " + describe(x, d));
      if (d.is_floating())
        check_against_cpu_ref("ArgmaxFwdOp", params, {tensor_of(x, d, nans)}, "NaN " + describe(x, d));
    }
  // Short rows, a thread each, which each thread walks from its own element round to it
  // again: every row holds its maximum several times, and every third row two NaNs.
  for (int64_t len : {8, 49, 64}) {
    const int64_t rows = 300;
    std::vector<double> row_ties(size_t(rows * len));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < len; ++j) row_ties[size_t(r * len + j)] = double((j + r) % 5);
    std::vector<double> row_nans = row_ties;
    for (int64_t r = 0; r < rows; r += 3) {
      row_nans[size_t(r * len + r * 7 % len)] = std::nan("");
      row_nans[size_t(r * len + len - 1)] = std::nan("");
    }
    const Params params{param("dim", int64_t(-1)), param("keepdim", false)};
    for (DType d : kFloatsAndInts) {
      check_against_cpu_ref("ArgmaxFwdOp", params, {tensor_of({rows, len}, d, row_ties)},
                            "short-row ties " + describe({rows, len}, d));
      if (d.is_floating())
        check_against_cpu_ref("ArgmaxFwdOp", params, {tensor_of({rows, len}, d, row_nans)},
                              "short-row NaN " + describe({rows, len}, d));
    }
  }
}

TILEOPS_GPU_TEST_CASE("cumsum") {
  struct Case {
    Shape x;
    int64_t dim;
  };
  const Case cases[] = {{{16, 1000}, -1}, {{4, 10000}, -1}, {{3, 4097}, 1},  {{1000, 64}, 0},
                        {{256, 8}, 0},    {{2, 65536}, 1},  {{5, 3, 7}, 1},  {{}, 0},
                        {{4096, 512}, 0}, {{1, 128256}, -1},
                        // one two-pass row of more tiles than a CTA has threads (733 fp32
                        // tiles): the tiles before are read in several rounds
                        {{1, 3000000}, -1},
                        // strips of columns (enough to fill 132 SMs): a partial last chunk,
                        // several chunks, several x[o], a partial last strip of scalars
                        {{300, 8192}, 0}, {{1500, 4608}, 0}, {{4, 700, 2048}, 1}, {{70, 8193}, 0},
                        // int64 rows of one tile, four or more an SM: staged through shared
                        // memory by a persistent grid (whole tiles, a partial tile)
                        {{600, 8192}, -1}, {{1000, 5000}, 1},
                        // rows of many tiles too large for L2 (48 MB at 16 bits): the
                        // look-back instead of two passes (the rows above are two-pass)
                        {{8, 3000000}, -1},
                        // rows of many tiles, of a length that takes no vector: the look-back
                        // of the element-by-element kernel, five rows' tiles part-major
                        {{5, 100003}, -1},
                        // long rows, a cluster of 8 a row covering every SM in one wave: on
                        // chip (cumsum_smem) holding 2-4 vectors a thread (int64 [64, 128256]:
                        // two passes, its slices too large for one wave)
                        {{64, 128256}, -1}, {{20, 100008}, 1}, {{17, 128256}, -1}};
  for (DType d : {dtypes::float32, dtypes::float16, dtypes::bfloat16, dtypes::int64})
    for (const Case& c : cases)
      check_against_cpu_ref("CumsumFwdOp", {param("dim", c.dim)}, {rand(c.x, d)}, describe(c.x, d) + " dim " + std::to_string(c.dim));
}

TILEOPS_GPU_TEST_CASE("activations") {
  const Shape shapes[] = {{1000, 1000}, {7, 13}, {1}, {0, 3}, {3, 5, 8}};
  for (const Shape& s : shapes) {
    for (DType d : kFloatsAndInts) check_against_cpu_ref("ReluFwdOp", {}, {rand(s, d)}, describe(s, d));
    for (DType d : kFloats) {
      check_against_cpu_ref("SiluFwdOp", {}, {rand(s, d)}, describe(s, d));
      check_against_cpu_ref("SigmoidFwdOp", {}, {rand(s, d)}, describe(s, d));
      for (const char* approximate : {"none", "tanh"})
        check_against_cpu_ref("GeluFwdOp", {param("approximate", approximate)}, {rand(s, d)}, describe(s, d) + " " + approximate);
    }
  }
  check_against_cpu_ref("SiluFwdOp", {}, {rand({300, 200}, dtypes::bfloat16)}, "non-contiguous", Device("cuda", 0), InputLayout::kNonContiguous);
}

TILEOPS_GPU_TEST_CASE("gated activations") {
  const Shape shapes[] = {{64, 2000}, {3, 14}, {1, 28672}, {2, 3, 64}, {0, 8}};
  for (DType d : kFloats)
    for (const Shape& s : shapes) {
      check_against_cpu_ref("SiluAndMulFwdOp", {}, {rand(s, d)}, describe(s, d));
      for (const char* approximate : {"none", "tanh"})
        check_against_cpu_ref("GeluAndMulFwdOp", {param("approximate", approximate)}, {rand(s, d)},
                              describe(s, d) + " " + approximate);
    }
}

TILEOPS_GPU_TEST_CASE("add and mul with broadcasting") {
  struct Case {
    Shape a, b;
  };
  const Case cases[] = {{{100, 200}, {100, 200}}, {{100, 200}, {200}},   {{100, 200}, {100, 1}}, {{100, 200}, {}},
                        {{4, 1, 5}, {1, 3, 1}},   {{7, 13}, {7, 13}},    {{1, 200}, {100, 1}},   {{0, 4}, {4}},
                        {{33}, {2, 33}}};
  for (const Case& c : cases) {
    for (DType d : kFloatsAndInts) {
      check_against_cpu_ref("AddFwdOp", {}, {rand(c.a, d), rand(c.b, d)}, describe(c.a, d) + " + " + describe(c.b, d));
      check_against_cpu_ref("AddFwdOp", {param("alpha", -1.0)}, {rand(c.a, d), rand(c.b, d)}, describe(c.a, d) + " alpha -1");
    }
    for (DType d : kFloats) {
      check_against_cpu_ref("AddFwdOp", {param("alpha", 0.22135943621178655)}, {rand(c.a, d), rand(c.b, d)},
                            describe(c.a, d) + " alpha 0.221");
      check_against_cpu_ref("MulFwdOp", {}, {rand(c.a, d), rand(c.b, d)}, describe(c.a, d) + " * " + describe(c.b, d));
    }
  }
  check_against_cpu_ref("MulFwdOp", {}, {rand({64, 48}, dtypes::float32), rand({64, 48}, dtypes::float32)},
                        "non-contiguous", Device("cuda", 0), InputLayout::kNonContiguous);
}

TILEOPS_GPU_TEST_CASE("RoPE, neox and interleaved, partial rotary dims") {
  struct Case {
    Shape batch;
    int64_t heads, head_dim, positions, rot_dim;
  };
  // A head's unit u is its rotation unit u and its pass-through unit u: R below and above
  // head_dim / 2 leave some units one of the two.
  const Case cases[] = {{{16}, 8, 128, 64, 128}, {{2, 5}, 4, 128, 100, 64}, {{3}, 2, 6, 10, 4}, {{0}, 4, 64, 8, 64},
                        {{7}, 3, 10, 20, 10},    {{5}, 4, 128, 50, 32},     {{6}, 3, 128, 40, 96}};
  for (DType d : kFloats)
    for (DType p : {dtypes::int32, dtypes::int64})
      for (const char* layout : {"neox", "interleaved"})
        for (const Case& c : cases) {
          Shape xs = c.batch;
          xs.push_back(c.heads);
          xs.push_back(c.head_dim);
          int64_t tokens = 1;
          for (int64_t b : c.batch) tokens *= b;
          std::vector<double> pos(static_cast<size_t>(tokens));
          std::uniform_int_distribution<int64_t> pick(0, c.positions - 1);
          for (auto& v : pos) v = double(pick(rng()));
          check_against_cpu_ref("RoPEFwdOp", {param("layout", layout)},
                                {rand(xs, d), tensor_of(c.batch, p, pos), rope_cache(c.positions, c.rot_dim)},
                                describe(xs, d) + " " + layout + " R " + std::to_string(c.rot_dim));
        }
}

TILEOPS_GPU_TEST_CASE("RoPE: a position outside the cache is a ValueError naming it") {
  const Device cuda("cuda", 0);
  Op rope("RoPEFwdOp", {}, std::string(BUILTIN));
  const Tensor x = rand({4, 2, 64}, dtypes::bfloat16).to(cuda);
  const Tensor cache = rand({32, 64}, dtypes::float32).to(cuda);
  const Tensor good = tensor_of({4}, dtypes::int64, {0, 5, 31, 2}).to(cuda);
  const Tensor bad = tensor_of({4}, dtypes::int64, {0, 5, 9000, 2}).to(cuda);
  rope({x, good, cache});
  synchronize(cuda);
  rope({x, bad, cache});  // no synchronisation at launch: the kernel records the error
  try {
    synchronize(cuda);
    FAIL("an out-of-range position passed");
  } catch (const ValueError& e) {
    const std::string message = e.what();
    CHECK(message.find("9000") != std::string::npos);
    CHECK(message.find("positions") != std::string::npos);
    CHECK(message.find("[0, 32)") != std::string::npos);
  }
  synchronize(cuda);  // reported once
  rope({x, good, cache});
  synchronize(cuda);
}

TILEOPS_GPU_TEST_CASE("inputs one element into their buffers take every family's fallback kernels") {
  // Lengths are multiples of every vector width, so only the pointers send each call to
  // the fallback: rows in registers, in shared memory and along columns, splits and
  // strips, as the aligned cases above.
  const auto misaligned = [](const char* op, const Params& params, const std::vector<Tensor>& inputs,
                             const std::string& what) {
    check_against_cpu_ref(op, params, inputs, what, Device("cuda", 0), InputLayout::kMisaligned);
  };
  for (DType d : kFloats) {
    const Tensor w = rand({4096}, d);
    misaligned("RMSNormFwdOp", {param("normalized_shape", Shape{4096})}, {rand({3, 4096}, d), w}, describe({3, 4096}, d));
    misaligned("RMSNormFwdOp", {param("normalized_shape", Shape{300000})}, {rand({2, 300000}, d), Tensor()},
               describe({2, 300000}, d));
    misaligned("FusedAddRMSNormFwdOp", {param("normalized_shape", Shape{4096})}, {rand({3, 4096}, d), rand({3, 4096}, d), w},
               describe({3, 4096}, d));
    misaligned("LayerNormFwdOp", {param("normalized_shape", Shape{4096})}, {rand({6, 4096}, d), w, rand({4096}, d)},
               describe({6, 4096}, d));
    misaligned("GroupNormFwdOp", {param("num_groups", int64_t(8))}, {rand({2, 32, 8, 8}, d), rand({32}, d), rand({32}, d)},
               describe({2, 32, 8, 8}, d));
    for (const char* op : {"SoftmaxFwdOp", "LogSoftmaxFwdOp"}) {
      misaligned(op, {param("dim", int64_t(-1))}, {rand({4, 1024}, d)}, describe({4, 1024}, d));
      misaligned(op, {param("dim", int64_t(-1))}, {rand({3, 128256}, d)}, describe({3, 128256}, d));
      misaligned(op, {param("dim", int64_t(0))}, {rand({4100, 4096}, d)}, describe({4100, 4096}, d) + " dim 0");
      misaligned(op, {param("dim", int64_t(1))}, {rand({8, 1000, 2048}, d)}, describe({8, 1000, 2048}, d) + " dim 1");
    }
    misaligned("SiluFwdOp", {}, {rand({1000, 1000}, d)}, describe({1000, 1000}, d));
    misaligned("SiluAndMulFwdOp", {}, {rand({64, 2048}, d)}, describe({64, 2048}, d));
    misaligned("MulFwdOp", {}, {rand({100, 256}, d), rand({256}, d)}, describe({100, 256}, d));
  }
  for (DType d : kFloatsAndInts) {
    for (const char* op : {"AmaxFwdOp", "ArgmaxFwdOp"})
      for (int64_t dim : {int64_t(-1), int64_t(0)}) {
        Params params{param("keepdim", false)};
        params.emplace_back("dim", std::string(op) == "ArgmaxFwdOp" ? ParamValue(dim) : ParamValue(Shape{dim}));
        misaligned(op, params, {rand({2048, 4096}, d)}, describe({2048, 4096}, d) + " dim " + std::to_string(dim));
      }
    for (int64_t dim : {int64_t(-1), int64_t(0)})
      if (d != dtypes::int32)  // cumsum's types
        misaligned("CumsumFwdOp", {param("dim", dim)}, {rand({300, 8192}, d)}, describe({300, 8192}, d) + " dim " + std::to_string(dim));
    if (d != dtypes::int32)  // rows on chip when aligned: the look-back
      misaligned("CumsumFwdOp", {param("dim", int64_t(-1))}, {rand({64, 128256}, d)}, describe({64, 128256}, d));
    misaligned("AddFwdOp", {}, {rand({100, 256}, d), rand({100, 256}, d)}, describe({100, 256}, d));
  }
  Params all{param("keepdim", false)};
  all.emplace_back("dim", none());
  misaligned("SumFwdOp", all, {rand({2048, 4096}, dtypes::bfloat16)}, "bfloat16 [2048, 4096] all axes");
  std::vector<double> positions(16);
  for (size_t t = 0; t < positions.size(); ++t) positions[t] = double((t * 7) % 64);
  misaligned("RoPEFwdOp", {param("layout", "neox")},
             {rand({16, 8, 128}, dtypes::bfloat16), tensor_of({16}, dtypes::int64, positions),
              rope_cache(64, 128)},
             "bfloat16 [16, 8, 128] neox");
}
