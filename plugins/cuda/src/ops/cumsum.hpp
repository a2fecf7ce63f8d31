#pragma once
// The cumsum kernel type's choice of form that tests check without a GPU (ops/cumsum.cpp).
#include "common.hpp"
#include "rows.hpp"

#include <optional>

namespace tileops::cuda {

// Whether `rows` rows of `len` elements of `e` (the scanned axis is the last), accessed
// `vec` elements at a time (16 bytes' worth, or 1 when the length does not allow it),
// take cumsum_row_staged on `arch` with `sm_count` SMs: int64 rows of one tile, at least
// four rows an SM, on sm_90.
bool cumsum_rows_staged(Elem e, int arch, int vec, int64_t len, int64_t rows, int sm_count);

// The layout of cumsum_smem (a cluster of CTAs a row, holding it in shared memory and
// registers: plan_rows' kSmem form) for `rows` rows of `len` elements of `e` accessed
// `vec` at a time on `arch`, with `sm_count` SMs and `smem_budget` bytes of shared memory
// a CTA, when those rows take it: 16-byte vectors, a cluster a row (no sweep), every SM
// taking a CTA, and every cluster at once. Else nothing.
std::optional<RowPlan> cumsum_rows_on_chip(Elem e, int arch, int vec, int64_t len, int64_t rows, int sm_count,
                                           int64_t smem_budget);

// Whether rows longer than a tile (x of `elements` elements of `e`) take the two-pass
// form (cumsum_tile_totals, then cumsum_row starting each tile from the totals before
// it) rather than the look-back: when x fits in three quarters of an L2 of `l2_bytes`,
// so that the second pass reads it from L2.
bool cumsum_rows_two_pass(Elem e, int64_t elements, int64_t l2_bytes);

// cumsum_strip's CTAs for columns: `bytes` of every row a strip (a CTA each, 256
// threads), `rows` rows a thread in flight; bytes 0 when the strips are too few to fill
// `sm_count` SMs (the chained column form instead).
struct CumsumStrips {
  int bytes, rows;
  bool operator==(const CumsumStrips&) const = default;
};
// For x viewed as [outer, len, inner] (inner > 1) of `e`, 16-byte vectors across.
CumsumStrips cumsum_strips(Elem e, int64_t outer, int64_t inner, int sm_count);

}  // namespace tileops::cuda
