// When cumsum rows take the staged form (cumsum_row_staged: a persistent grid that loads
// rows into shared memory ahead of the scan), the on-chip form (cumsum_smem: a cluster a
// row) or two passes, and how columns are cut into strips, without a GPU.
#include "ops/cumsum.hpp"

#include <doctest/doctest.h>

namespace cuda = tileops::cuda;
using cuda::Elem;

namespace {

constexpr int kSms = 132;
constexpr int64_t kH100Smem = 227 << 10;  // shared memory a CTA may opt in to
constexpr int kI64Vec = 2, kF32Vec = 4, kBf16Vec = 8;  // elements in a 16-byte vector

// cumsum_smem's layout for `rows` rows of `len` elements of `e` in 16-byte vectors on an
// H100, if they take it.
std::optional<cuda::RowPlan> on_chip(Elem e, int64_t rows, int64_t len) {
  return cuda::cumsum_rows_on_chip(e, 90, 16 / int(cuda::size_of(e)), len, rows, kSms, kH100Smem);
}

}  // namespace

TEST_CASE("int64 rows of one tile, at least four an SM, are staged on sm_90") {
  CHECK(cuda::cumsum_rows_staged(Elem::i64, 90, kI64Vec, 8192, 8192, kSms));
  CHECK(cuda::cumsum_rows_staged(Elem::i64, 90, kI64Vec, 5000, 4 * kSms, kSms));  // a partial tile
  CHECK(cuda::cumsum_rows_staged(Elem::i64, 100, kI64Vec, 64, 100000, kSms));    // short rows, a later arch
}

TEST_CASE("other rows keep a CTA a tile") {
  CHECK_FALSE(cuda::cumsum_rows_staged(Elem::i64, 90, kI64Vec, 8192, 4 * kSms - 1, kSms));  // too few rows
  CHECK_FALSE(cuda::cumsum_rows_staged(Elem::i64, 90, kI64Vec, 8194, 8192, kSms));  // two tiles: a chain
  CHECK_FALSE(cuda::cumsum_rows_staged(Elem::i64, 80, kI64Vec, 8192, 8192, kSms));  // no bulk copies before sm_90
  CHECK_FALSE(cuda::cumsum_rows_staged(Elem::i64, 90, 1, 8191, 8192, kSms));        // element accesses
  CHECK_FALSE(cuda::cumsum_rows_staged(Elem::f32, 90, kF32Vec, 8192, 8192, kSms));  // staged ran slower
  CHECK_FALSE(cuda::cumsum_rows_staged(Elem::bf16, 90, kBf16Vec, 8192, 8192, kSms));
}

TEST_CASE("long rows go on chip when a cluster a row covers every SM in one wave") {
  const auto top_p = on_chip(Elem::f32, 64, 128256);  // 512 CTAs, four an SM
  REQUIRE(top_p);
  CHECK(top_p->cluster == 8);
  CHECK(top_p->held == 2);  // 2 vectors a thread in registers: 62.6 KB slices to 54.6 KB
  CHECK(top_p->slice_bytes == 128256 * 4 / 8 - 2 * 256 * 16);
  const auto bf16 = on_chip(Elem::bf16, 64, 128256);
  REQUIRE(bf16);
  CHECK(bf16->held == 2);  // the fewest a cluster a row holds
  const auto i64 = on_chip(Elem::i64, 17, 128256);  // 136 CTAs, two an SM
  REQUIRE(i64);
  CHECK(i64->held == 4);  // the most cumsum_smem holds
  CHECK(on_chip(Elem::f16, 20, 100008));
}

TEST_CASE("other long rows keep two passes or the look-back") {
  CHECK_FALSE(on_chip(Elem::f32, 16, 128256));    // 128 CTAs: SMs left idle
  CHECK_FALSE(on_chip(Elem::i64, 64, 128256));    // 125 KB slices four an SM: more than 4 vectors a thread held
  CHECK_FALSE(on_chip(Elem::f32, 2048, 128256));  // clusters that would sweep rows
  CHECK_FALSE(on_chip(Elem::f32, 8, 3000000));    // more than 8 CTAs' shared memory a row
  CHECK_FALSE(on_chip(Elem::f32, 64, 8200));      // rows in registers (no kSmem form)
  CHECK_FALSE(cuda::cumsum_rows_on_chip(Elem::f32, 90, 1, 128255, 64, kSms, kH100Smem));  // element accesses
  CHECK_FALSE(cuda::cumsum_rows_on_chip(Elem::f32, 80, 4, 128256, 64, kSms, kH100Smem));  // no clusters before sm_90
  CHECK_FALSE(cuda::cumsum_rows_on_chip(Elem::f32, 90, 4, 128256, 64, kSms, 0));          // no shared memory reported
}

TEST_CASE("rows of many tiles take two passes when x fits in three quarters of L2") {
  constexpr int64_t kL2 = 50 << 20;  // the H200's
  CHECK(cuda::cumsum_rows_two_pass(Elem::f32, 64 * 128256, kL2));  // top-p: 32.8 MB
  CHECK(cuda::cumsum_rows_two_pass(Elem::bf16, 2 * 65536, kL2));
  CHECK(cuda::cumsum_rows_two_pass(Elem::i64, (kL2 * 3 / 4) / 8, kL2));  // at the limit
  CHECK_FALSE(cuda::cumsum_rows_two_pass(Elem::i64, (kL2 * 3 / 4) / 8 + 1, kL2));
  CHECK_FALSE(cuda::cumsum_rows_two_pass(Elem::f16, 8 * 3000000, kL2));  // 48 MB: the look-back
  CHECK_FALSE(cuda::cumsum_rows_two_pass(Elem::f32, 64 * 128256, 0));  // no L2 reported
}

TEST_CASE("column scans take strips as wide as fill the GPU, more rows in flight for one wave") {
  using S = cuda::CumsumStrips;
  CHECK(cuda::cumsum_strips(Elem::f32, 1, 8192, kSms) == S{128, 4});      // 256 wide strips: two CTAs an SM
  CHECK(cuda::cumsum_strips(Elem::bf16, 1, 8192, kSms) == S{128, 12});    // 128: one wave, a CTA an SM
  CHECK(cuda::cumsum_strips(Elem::f16, 1, 8448, kSms) == S{128, 12});     // 132, one an SM exactly
  CHECK(cuda::cumsum_strips(Elem::bf16, 1, 8704, kSms) == S{64, 4});      // 136 wide: a second wave
  CHECK(cuda::cumsum_strips(Elem::bf16, 1, 7168, kSms) == S{64, 4});      // 112 wide: SMs left idle
  CHECK(cuda::cumsum_strips(Elem::i64, 2, 4096, kSms) == S{128, 4});      // outer counts strips too
  CHECK(cuda::cumsum_strips(Elem::f32, 1, 2048, kSms) == S{0, 0});        // 128 narrow strips: chained
}
