/* What the fake CUDA driver (fake_cuda.c, built as libcuda.so.1 for machines without a
 * GPU) lets a test read and set. Resolve these with dlsym on the loaded libcuda.so.1. */
#ifndef TILEOPS_TESTS_FAKE_CUDA_H
#define TILEOPS_TESTS_FAKE_CUDA_H

#define FAKE_CUDA_DEVICE_NAME "Fake Hopper (tileops test driver)"

struct fake_cuda_counts {
  long pool_allocs;       /* cuMemAllocAsync calls that succeeded */
  long pool_frees;        /* cuMemFreeAsync calls */
  long launches;          /* cuLaunchKernel and cuLaunchKernelEx calls */
  long module_loads;      /* cuModuleLoadData calls */
  long stream_creates, stream_destroys;
  long synchronizes;      /* cuStreamSynchronize calls */
  long outstanding_bytes; /* allocated and not yet freed */
  void* last_launch_stream;
  unsigned last_launch_cluster;    /* CTAs a cluster of the last launch (1: none asked) */
  int last_launch_cluster_policy;  /* its CUclusterSchedulingPolicy preference (0: none asked) */
  unsigned last_launch_grid;       /* its grid's CTAs along x */
  int last_launch_cooperative;     /* whether it asked for all its CTAs resident at once */
  long context_queries;            /* cuCtxGetCurrent calls */
  unsigned char last_launch_param[256]; /* the first bytes of its first kernel parameter (Ex launches) */
};

typedef void (*fake_cuda_read_counts_fn)(struct fake_cuda_counts* out);
/* Bytes the pool may hold at once (allocations past it fail out of memory); -1: none. */
typedef void (*fake_cuda_set_alloc_limit_fn)(long bytes);
/* CTAs a cooperative launch may have (more fail as too large, as where other work holds
 * the SMs); -1: as many as asked. */
typedef void (*fake_cuda_set_cooperative_limit_fn)(long ctas);
/* Bytes of a cuLaunchKernelEx launch's first kernel parameter that last_launch_param
 * keeps (at most its size; 0, the default: none); a plain launch zeroes them. Every Ex
 * launch while set must have a first parameter at least that large. */
typedef void (*fake_cuda_set_param_bytes_fn)(unsigned long bytes);
/* Marks a stream (from cuStreamCreate) as being captured into a graph, or not. */
typedef void (*fake_cuda_set_capturing_fn)(void* stream, int capturing);

void fake_cuda_read_counts(struct fake_cuda_counts* out);
void fake_cuda_set_alloc_limit(long bytes);
void fake_cuda_set_cooperative_limit(long ctas);
void fake_cuda_set_capturing(void* stream, int capturing);
void fake_cuda_set_param_bytes(unsigned long bytes);

#endif
