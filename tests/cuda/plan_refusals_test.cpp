// The calls the CUDA plugin's kernel types refuse while planning (a shape, a param or a
// size their kernels do not take), each with the message the runtime passes on. Planned
// on an H200's facts; no GPU needed.
#include "call_corpus.hpp"
#include "ops/ops.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

namespace cuda = tileops::cuda;
using cuda::test::TestCall;

namespace {

constexpr tileops_dtype kF32{TILEOPS_DTYPE_FLOAT, 32, 1}, kF16{TILEOPS_DTYPE_FLOAT, 16, 1},
    kI32{TILEOPS_DTYPE_INT, 32, 1}, kI64{TILEOPS_DTYPE_INT, 64, 1};
constexpr int64_t k2to31 = int64_t(1) << 31;

// What the op's kernel type says refusing `c` on an H200, or "accepted".
std::string refusal_of(TestCall& c, const char* op) {
  for (const cuda::KernelTypeDef* def : cuda::all_kernel_types()) {
    if (std::string(def->op) != op) continue;
    try {
      def->identity(cuda::Call(c.call(cuda::test::kH200)));
    } catch (const tileops::sdk::Failure& e) {
      CHECK(e.status == TILEOPS_ERR_UNSUPPORTED);
      return e.message;
    }
    return "accepted";
  }
  return std::string("no kernel type of ") + op;
}

}  // namespace

TEST_CASE("gated activations refuse an odd last dim and more than 2^31 outputs") {
  TestCall odd("SiluAndMulFwdOp", "odd");
  CHECK(refusal_of(odd.tensor(kF16, {4, 7}), "SiluAndMulFwdOp") == "SiluAndMulFwdOp on CUDA: x's last dim must be even");
  TestCall huge("GeluAndMulFwdOp", "huge");
  huge.tensor(kF16, {k2to31, 2}).param_string("approximate", "none");
  CHECK(refusal_of(huge, "GeluAndMulFwdOp") == "GeluAndMulFwdOp on CUDA: more than 2^31 output elements");
}

TEST_CASE("add and mul refuse mixed dtypes, a fractional alpha on integers, and more than 2^31 vectors") {
  TestCall mixed("MulFwdOp", "mixed");
  CHECK(refusal_of(mixed.tensor(kF32, {8}).tensor(kF16, {8}), "MulFwdOp") ==
        "MulFwdOp on CUDA: a and b have different dtypes");
  TestCall alpha("AddFwdOp", "alpha");
  alpha.tensor(kI32, {8}).tensor(kI32, {8}).param_float("alpha", 0.5);
  CHECK(refusal_of(alpha, "AddFwdOp") == "AddFwdOp on CUDA: alpha = 0.500000 is not integral for integer tensors");
  TestCall huge("AddFwdOp", "huge");
  huge.tensor(kF32, {k2to31, 3}).tensor(kF32, {3}).param_float("alpha", 1);
  CHECK(refusal_of(huge, "AddFwdOp") == "AddFwdOp on CUDA: more than 2^31 output vectors");
}

TEST_CASE("GroupNorm refuses a rank below 2, groups that do not divide C, and groups past 31-bit indexing") {
  TestCall rank("GroupNormFwdOp", "rank");
  rank.tensor(kF32, {8}).absent().absent().param_int("num_groups", 2).param_float("eps", 1e-5);
  CHECK(refusal_of(rank, "GroupNormFwdOp") == "GroupNormFwdOp on CUDA: x must be [N, C, *S], got rank 1");
  TestCall groups("GroupNormFwdOp", "groups");
  groups.tensor(kF32, {2, 8, 4}).absent().absent().param_int("num_groups", 3).param_float("eps", 1e-5);
  CHECK(refusal_of(groups, "GroupNormFwdOp") == "GroupNormFwdOp on CUDA: num_groups 3 does not divide C = 8");
  TestCall huge("GroupNormFwdOp", "huge");
  huge.tensor(kF16, {1, 2, k2to31}).absent().absent().param_int("num_groups", 1).param_float("eps", 1e-5);
  CHECK(refusal_of(huge, "GroupNormFwdOp") ==
        "GroupNormFwdOp on CUDA: groups of 4294967296 elements, 1 of them; the kernel indexes both with 31 bits");
}

TEST_CASE("a reduction over axes that alternate more than 8 times with kept ones is refused, counting the runs") {
  TestCall alternating("SumFwdOp", "alternating");
  alternating.tensor(kF32, std::vector<int64_t>(18, 2))
      .param_bool("keepdim", false)
      .param_ints("dim", {0, 2, 4, 6, 8, 10, 12, 14, 16});
  CHECK(refusal_of(alternating, "SumFwdOp") ==
        "SumFwdOp on CUDA: reduction over axes that form 9 kept and 9 reduced runs; reduce_general takes at most 8 "
        "of each");
}

TEST_CASE("argmax refuses rows past 31-bit indexing") {
  TestCall huge("ArgmaxFwdOp", "huge");
  huge.tensor(kF16, {k2to31}).param_bool("keepdim", false).param_int("dim", 0);
  CHECK(refusal_of(huge, "ArgmaxFwdOp") ==
        "ArgmaxFwdOp on CUDA: argmax over 2147483648 elements; the kernel indexes them with 31 bits");
}

TEST_CASE("RoPE refuses an unknown layout, an odd or too long rotary dim, and more than 2^31 work units") {
  const auto rope = [](const char* layout, std::vector<int64_t> x, int64_t rot) {
    TestCall c("RoPEFwdOp", layout);
    std::vector<int64_t> positions(x.begin(), x.end() - 2);
    c.tensor(kF16, x).tensor(kI64, positions).tensor(kF32, {64, rot}).param_string("layout", layout);
    return refusal_of(c, "RoPEFwdOp");
  };
  CHECK(rope("gptj", {4, 8, 64}, 64) == "RoPEFwdOp on CUDA: layout = 'gptj'; the kernel knows 'neox' and 'interleaved'");
  CHECK(rope("neox", {4, 8, 64}, 7) == "RoPEFwdOp on CUDA: R = 7 must be even and at most D");
  CHECK(rope("neox", {4, 8, 64}, 128) == "RoPEFwdOp on CUDA: R = 128 must be even and at most D");
  CHECK(rope("interleaved", {k2to31 / 4, 8, 64}, 64) == "RoPEFwdOp on CUDA: more than 2^31 work units");
  CHECK(rope("neox", {4, 8, 64}, 64) == "accepted");
}
