// The work-item order of the norms' queue form (kernels/queue_order.cuh), without a GPU:
// every item is handed out once, and no normalisation item comes before all of its row's
// statistics items — the property that keeps the persistent grid from deadlocking.
#include "../../plugins/cuda/kernels/queue_order.cuh"

#include <doctest/doctest.h>

#include <cstddef>
#include <set>
#include <tuple>
#include <vector>

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
          const tileops_cuda::QueueItem it(n, rows, pieces, lag);
          in_range = in_range && it.row >= 0 && it.row < rows && it.piece >= 0 && it.piece < pieces;
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
    const tileops_cuda::QueueItem it(n, rows, pieces, lag);
    if (it.statistics && it.row == 3) last_statistics_of_row_3 = n;
    if (!it.statistics && it.row == 1 && first_normalisation_of_row_1 < 0) first_normalisation_of_row_1 = n;
  }
  CHECK(last_statistics_of_row_3 >= 0);
  CHECK(last_statistics_of_row_3 < first_normalisation_of_row_1);
}
