// The work-item order of the norms' queue form (kernels/queue_order.cuh), without a GPU:
// every item is handed out once, and no normalisation item comes before all of its row's
// statistics items — the property that keeps the persistent grid from deadlocking. And
// the division by multiplication it computes with (make_fast_div, fast_div).
#include "../../plugins/cuda/kernels/queue_order.cuh"
#include "ops/common.hpp"

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace {

tileops_cuda::FastDiv div(long long d) { return tileops::cuda::make_fast_div(uint32_t(d)); }

}  // namespace

TEST_CASE("fast_div divides numerators and divisors below 2^31 exactly") {
  const uint32_t big = (uint32_t(1) << 31) - 1;
  for (uint32_t d : {1u, 2u, 3u, 7u, 256u, 257u, 641u, 65535u, 65537u, 1000003u, (1u << 30) + 1, big - 1, big}) {
    CAPTURE(d);
    const tileops_cuda::FastDiv f = div(d);
    CHECK(f.divisor == d);
    std::string wrong;  // the first numerator whose quotient is off
    for (uint32_t n : {0u, 1u, d - 1, d, d + 1, 2 * d - 1, big / d * d - 1, big / d * d, big - 1, big})
      if (n <= big && wrong.empty() && tileops_cuda::fast_div(n, f) != n / d) wrong = std::to_string(n);
    for (uint64_t n = 0; n <= big && wrong.empty(); n += 99991)
      if (tileops_cuda::fast_div(uint32_t(n), f) != uint32_t(n) / d) wrong = std::to_string(n);
    CHECK_MESSAGE(wrong.empty(), "numerator " << wrong);
  }
}

TEST_CASE("the queue hands out every item once, each row's statistics before its normalisation") {
  for (long long rows : {1, 2, 3, 5, 32})
    for (long long pieces : {1, 2, 7, 256})
      for (long long lag : {1, 2, 3, 10}) {
        CAPTURE(rows);
        CAPTURE(pieces);
        CAPTURE(lag);
        std::set<std::tuple<bool, long long, long long>> seen;
        std::vector<long long> statistics_done(std::size_t(rows), 0);
        bool in_range = true, once = true, ordered = true;
        for (long long n = 0; n < 2 * rows * pieces; ++n) {
          const tileops_cuda::QueueItem it(unsigned(n), unsigned(rows), div(pieces), div(2 * pieces), unsigned(lag));
          in_range = in_range && it.row < rows && it.piece < pieces;  // unsigned: below 0 wraps past them
          if (!in_range) break;
          once = once && seen.insert({it.statistics, it.row, it.piece}).second;
          if (it.statistics)
            ++statistics_done[std::size_t(it.row)];
          else
            ordered = ordered && statistics_done[std::size_t(it.row)] == pieces;
        }
        CHECK(in_range);
        CHECK(once);
        CHECK(ordered);
        CHECK(seen.size() == std::size_t(2 * rows * pieces));
      }
}

TEST_CASE("with a lag of L rows, row k is normalised after the statistics of row k + L") {
  const long long rows = 6, pieces = 3, lag = 2;
  long long last_statistics_of_row_3 = -1, first_normalisation_of_row_1 = -1;
  for (long long n = 0; n < 2 * rows * pieces; ++n) {
    const tileops_cuda::QueueItem it(unsigned(n), unsigned(rows), div(pieces), div(2 * pieces), unsigned(lag));
    if (it.statistics && it.row == 3) last_statistics_of_row_3 = n;
    if (!it.statistics && it.row == 1 && first_normalisation_of_row_1 < 0) first_normalisation_of_row_1 = n;
  }
  CHECK(last_statistics_of_row_3 >= 0);
  CHECK(last_statistics_of_row_3 < first_normalisation_of_row_1);
}
