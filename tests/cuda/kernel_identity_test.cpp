// Kernel types' identities (ops/*.cpp): calls with the same identity share a kernel, so
// an identity must name whatever the kernel is compiled for. The norms' name the affine
// inputs a call has (NormAffine: two calls that differ only in an absent weight or bias
// must never share a kernel); cumsum's tell rows of one tile from longer rows, whose
// programs differ, and name the length and layout of rows on chip, which their launches
// use. No GPU needed.
#include "call_corpus.hpp"

#include "ops/ops.hpp"

#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

namespace cuda = tileops::cuda;

constexpr tileops_dtype kF16{TILEOPS_DTYPE_FLOAT, 16, 1};

// The identity of `call` (TestCall, call_corpus.hpp) on an H200's facts.
std::string identity(cuda::test::TestCall& call, const char* op) {
  for (const cuda::KernelTypeDef* def : cuda::all_kernel_types())
    if (std::strcmp(def->op, op) == 0) return def->identity(cuda::Call(call.call(cuda::test::kH200)));
  FAIL("no kernel type for " << op);
  return {};
}

// A call of norm `op` on x [4, 4096] f16 with the affine inputs `present` (after x and,
// for the fused add, the residual), normalized over the last dim.
std::string identity(const char* op, std::vector<bool> present) {
  cuda::test::TestCall c(op, "");
  c.tensor(kF16, {4, 4096});
  if (std::strcmp(op, "FusedAddRMSNormFwdOp") == 0) c.tensor(kF16, {4, 4096});
  for (bool p : present) p ? c.tensor(kF16, {4096}) : c.absent();
  c.param_ints("normalized_shape", {4096}).param_float("eps", 1e-5);
  return identity(c, op);
}

// A cumsum along the last dim of x [rows, len] f16.
std::string cumsum_identity(int64_t rows, int64_t len) {
  cuda::test::TestCall c("CumsumFwdOp", "");
  c.tensor(kF16, {rows, len}).param_int("dim", -1);
  return identity(c, "CumsumFwdOp");
}

}  // namespace

TEST_CASE("LayerNorm's identity differs for each weight/bias pair, as its kernels do") {
  const std::string both = identity("LayerNormFwdOp", {true, true}), weight = identity("LayerNormFwdOp", {true, false}),
                    bias = identity("LayerNormFwdOp", {false, true}), none = identity("LayerNormFwdOp", {false, false});
  CHECK(both.find("|affine 3|") != std::string::npos);
  CHECK(weight.find("|affine 1|") != std::string::npos);
  CHECK(bias.find("|affine 2|") != std::string::npos);
  CHECK(none.find("|affine 0|") != std::string::npos);
  CHECK(identity("LayerNormFwdOp", {}) == none);  // omitted trailing inputs are absent
}

TEST_CASE("RMSNorm and the fused add name their weight, wherever it sits in the inputs") {
  CHECK(identity("RMSNormFwdOp", {true}).find("|affine 1|") != std::string::npos);
  CHECK(identity("RMSNormFwdOp", {false}).find("|affine 0|") != std::string::npos);
  CHECK(identity("FusedAddRMSNormFwdOp", {true}).find("|affine 1|") != std::string::npos);
  CHECK(identity("FusedAddRMSNormFwdOp", {}).find("|affine 0|") != std::string::npos);
}

TEST_CASE("cumsum rows of one tile and longer rows are kernel types of their own") {
  // A 16-bit tile is 256 threads x 32 elements: 8192.
  const std::string one_tile = cumsum_identity(4, 8192), long_rows = cumsum_identity(4, 8200);
  CHECK(one_tile != long_rows);
  CHECK(long_rows.find(" long") != std::string::npos);
  CHECK(one_tile.find(" long") == std::string::npos);
  CHECK(cumsum_identity(2, 128256) == cumsum_identity(8, 3000000));  // both long: one kernel type
  CHECK(cumsum_identity(64, 8192) == one_tile);
}

TEST_CASE("cumsum rows on chip name their length and layout, which their launches depend on") {
  // [64, 128256] f16: a cluster of 8 a row in one wave (cumsum_smem).
  const std::string on_chip = cumsum_identity(64, 128256);
  CHECK(on_chip.find("|rows on chip len 128256 smem ") != std::string::npos);
  CHECK(on_chip != cumsum_identity(64, 128264));  // another slice size
  CHECK(on_chip == cumsum_identity(32, 128256));  // the same layout for fewer rows
  CHECK(cumsum_identity(2, 128256).find(" long") != std::string::npos);  // 16 CTAs: two passes
}
