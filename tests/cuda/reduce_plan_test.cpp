// Which CTA the column reductions take (reduce_col's threads across and down, and the
// cluster on sm_90), without a GPU.
#include "ops/reduce_layout.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

namespace cuda = tileops::cuda;
using cuda::Elem;

namespace {

constexpr int kSms = 132;

cuda::ReduceLayout columns(std::vector<int64_t> shape, size_t dim) {
  std::vector<bool> reduced(shape.size(), false);
  reduced[dim] = true;
  return cuda::reduce_layout(shape, reduced);
}

}  // namespace

TEST_CASE("16-bit columns that would take clusters of 4 or more read 128-byte runs, in clusters half the size") {
  const cuda::ReduceLayout l = columns({8192, 8192}, 0);
  REQUIRE(l.form == cuda::ReduceLayout::kCol);
  CHECK(cuda::col_cluster(l, 8, cuda::kColWide, kSms) == 4);
  for (Elem e : {Elem::bf16, Elem::f16}) {
    const cuda::ColThreads col = cuda::col_threads(l, e, 8, kSms);
    CHECK(col == cuda::kColNarrow);
    CHECK(cuda::col_cluster(l, 8, col, kSms) == 2);
  }
}

TEST_CASE("other columns read 256-byte runs") {
  CHECK(cuda::col_threads(columns({8, 4096, 4096}, 1), Elem::bf16, 8, kSms) == cuda::kColWide);  // no cluster at 256
  CHECK(cuda::col_threads(columns({8192, 8192}, 0), Elem::i32, 4, kSms) == cuda::kColWide);      // 32-bit
  CHECK(cuda::col_threads(columns({8192, 8192}, 0), Elem::f32, 4, kSms) == cuda::kColWide);
  CHECK(cuda::col_threads(columns({8192, 8192}, 0), Elem::i64, 2, kSms) == cuda::kColWide);
}
