// The order in which norm_queue (norm.cuh) hands out its work items, shared with the host
// test that checks it (tests/cuda/queue_order_test.cpp): each item once, and every
// normalisation item after all of its row's statistics items, which is what keeps the
// queue free of deadlock (an item only ever waits for items taken before it).
#pragma once
#include "params.cuh"

namespace tileops_cuda {

// Item `n` of 2 * rows * pieces: the statistics of rows 0 .. lead - 1 (lead = min(lag,
// rows)), then for each k the statistics of row k + lead and the normalisation of row k,
// then the normalisation of the last lead rows. `pieces` and `pairs` (2 * pieces) divide
// by multiplication: item numbers are below 2^31 (the host's queue_fits), and a
// normalisation item's loads wait for this arithmetic, in every item.
struct QueueItem {
  bool statistics;
  unsigned row, piece;
  TILEOPS_CUDA_HOST_DEVICE QueueItem(unsigned n, unsigned rows, FastDiv pieces, FastDiv pairs, unsigned lag) {
    const unsigned lead = lag < rows ? lag : rows;
    const unsigned head = lead * pieces.divisor, body = (rows - lead) * pairs.divisor;
    unsigned k;
    if (n < head) {
      statistics = true;
      row = fast_div(n, pieces);
      piece = n - row * pieces.divisor;
    } else if ((k = n - head) < body) {
      const unsigned pair = fast_div(k, pairs), slot = k - pair * pairs.divisor;
      statistics = slot < pieces.divisor;
      row = statistics ? pair + lead : pair;
      piece = statistics ? slot : slot - pieces.divisor;
    } else {
      k -= body;
      const unsigned q = fast_div(k, pieces);
      statistics = false;
      row = rows - lead + q;
      piece = k - q * pieces.divisor;
    }
  }
};

}  // namespace tileops_cuda
