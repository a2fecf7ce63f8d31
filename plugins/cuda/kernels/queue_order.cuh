// The order in which norm_queue (norm.cuh) hands out its work items, shared with the host
// test that checks it (tests/cuda/queue_order_test.cpp): each item once, and every
// normalisation item after all of its row's statistics items, which is what keeps the
// queue free of deadlock (an item only ever waits for items taken before it).
#pragma once

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
#define TILEOPS_CUDA_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define TILEOPS_CUDA_HOST_DEVICE
#endif

namespace tileops_cuda {

// Item `n` of 2 * rows * pieces: the statistics of rows 0 .. lead - 1 (lead = min(lag,
// rows)), then for each k the statistics of row k + lead and the normalisation of row k,
// then the normalisation of the last lead rows.
struct QueueItem {
  bool statistics;
  long long row, piece;
  TILEOPS_CUDA_HOST_DEVICE QueueItem(long long n, long long rows, long long pieces, long long lag) {
    const long long lead = lag < rows ? lag : rows;
    const long long head = lead * pieces, body = (rows - lead) * 2 * pieces;
    long long k;
    if (n < head) {
      statistics = true;
      row = n / pieces;
      piece = n % pieces;
    } else if ((k = n - head) < body) {
      const long long pair = k / (2 * pieces), slot = k % (2 * pieces);
      statistics = slot < pieces;
      row = statistics ? pair + lead : pair;
      piece = slot % pieces;
    } else {
      k -= body;
      statistics = false;
      row = rows - lead + k / pieces;
      piece = k % pieces;
    }
  }
};

}  // namespace tileops_cuda
