#pragma once
// The cumsum kernel type's choice of form that tests check without a GPU (ops/cumsum.cpp).
#include "common.hpp"

namespace tileops::cuda {

// Whether `rows` rows of `len` elements of `e` (the scanned axis is the last), accessed
// `vec` elements at a time (16 bytes' worth, or 1 when the length does not allow it),
// take cumsum_row_staged on `arch` with `sm_count` SMs: int64 rows of one tile, at least
// four rows an SM, on sm_90.
bool cumsum_rows_staged(Elem e, int arch, int vec, int64_t len, int64_t rows, int sm_count);

// Whether rows longer than a tile (x of `elements` elements of `e`) take the two-pass
// form (cumsum_tile_totals, then cumsum_row starting each tile from the totals before
// it) rather than the look-back: when x fits in three quarters of an L2 of `l2_bytes`,
// so that the second pass reads it from L2.
bool cumsum_rows_two_pass(Elem e, int64_t elements, int64_t l2_bytes);

}  // namespace tileops::cuda
