/* libcuda.so.1 for machines without a GPU: the driver entry points the CUDA plugin
 * resolves, answering like one Hopper device whose memory is host memory. Kernels are
 * loaded as opaque images and launches only counted, so what runs on it is the plugin's
 * host side: device setup, its caching allocator, copies, streams, the JIT's module
 * loads and the launch path. A test or benchmark reaches it with LD_LIBRARY_PATH on
 * its folder; fake_cuda.h declares the counters and switches it exports.
 *
 * Memory blocks carry their size in a header, so an allocation limit can be enforced
 * (for out-of-memory paths). Streams are heap tokens; a stream can be marked as being
 * captured. Not thread-safe beyond what the tests need: counters are atomics. */
#include "fake_cuda.h"

#include <cuda.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_ALIGN 256

static struct {
  atomic_long pool_allocs, pool_frees, launches, module_loads, stream_creates, stream_destroys, synchronizes;
  atomic_long outstanding_bytes, context_queries;
} counts;
static atomic_long alloc_limit = -1; /* bytes the pool may hold at once; -1: no limit */
static _Thread_local CUcontext current_context;
static CUstream last_launch_stream;
static unsigned last_launch_cluster = 1;
static int last_launch_cluster_policy;
static unsigned last_launch_grid;
static atomic_long cooperative_limit = -1; /* CTAs a cooperative launch may have; -1: no limit */
static int last_launch_cooperative;
static unsigned long param_bytes;
static unsigned char last_launch_param[sizeof(((struct fake_cuda_counts*)0)->last_launch_param)];

struct stream_token {
  int capturing;
};

/* ---- what tests read and set ---- */

void fake_cuda_read_counts(struct fake_cuda_counts* out) {
  out->pool_allocs = atomic_load(&counts.pool_allocs);
  out->pool_frees = atomic_load(&counts.pool_frees);
  out->launches = atomic_load(&counts.launches);
  out->module_loads = atomic_load(&counts.module_loads);
  out->stream_creates = atomic_load(&counts.stream_creates);
  out->stream_destroys = atomic_load(&counts.stream_destroys);
  out->synchronizes = atomic_load(&counts.synchronizes);
  out->outstanding_bytes = atomic_load(&counts.outstanding_bytes);
  out->last_launch_stream = last_launch_stream;
  out->last_launch_cluster = last_launch_cluster;
  out->last_launch_cluster_policy = last_launch_cluster_policy;
  out->last_launch_grid = last_launch_grid;
  out->last_launch_cooperative = last_launch_cooperative;
  out->context_queries = atomic_load(&counts.context_queries);
  memcpy(out->last_launch_param, last_launch_param, sizeof last_launch_param);
}
void fake_cuda_set_param_bytes(unsigned long bytes) {
  param_bytes = bytes < sizeof last_launch_param ? bytes : sizeof last_launch_param;
}
void fake_cuda_set_alloc_limit(long bytes) { atomic_store(&alloc_limit, bytes); }
void fake_cuda_set_cooperative_limit(long ctas) { atomic_store(&cooperative_limit, ctas); }
void fake_cuda_set_capturing(void* stream, int capturing) { ((struct stream_token*)stream)->capturing = capturing; }

/* Calls that read the current context fail without one, as the driver's do: a plugin
 * that skips making its context current before them fails its tests here. */
static int no_context(void) { return current_context == NULL; }
static int is_default_stream(CUstream s) { return s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD; }

/* ---- memory ---- */

static void* block_alloc(size_t bytes) {
  const long limit = atomic_load(&alloc_limit);
  if (limit >= 0 && atomic_load(&counts.outstanding_bytes) + (long)bytes > limit) return NULL;
  char* base = aligned_alloc(FAKE_ALIGN, FAKE_ALIGN + (bytes + FAKE_ALIGN - 1) / FAKE_ALIGN * FAKE_ALIGN);
  if (!base) return NULL;
  memcpy(base, &bytes, sizeof bytes);
  atomic_fetch_add(&counts.outstanding_bytes, (long)bytes);
  return base + FAKE_ALIGN;
}
static void block_free(void* p) {
  if (!p) return;
  char* base = (char*)p - FAKE_ALIGN;
  size_t bytes;
  memcpy(&bytes, base, sizeof bytes);
  atomic_fetch_sub(&counts.outstanding_bytes, (long)bytes);
  free(base);
}

CUresult CUDAAPI cuMemAlloc(CUdeviceptr* p, size_t bytes) {
  void* b = block_alloc(bytes);
  *p = (CUdeviceptr)b;
  return b ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr* p, size_t bytes, CUstream s) {
  (void)s;
  if (no_context()) return CUDA_ERROR_INVALID_CONTEXT;
  CUresult r = cuMemAlloc(p, bytes);
  if (r == CUDA_SUCCESS) atomic_fetch_add(&counts.pool_allocs, 1);
  return r;
}
CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr p, CUstream s) {
  (void)s;
  if (no_context()) return CUDA_ERROR_INVALID_CONTEXT;
  atomic_fetch_add(&counts.pool_frees, 1);
  block_free((void*)p);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemsetD32(CUdeviceptr p, unsigned int value, size_t n) {
  for (size_t i = 0; i < n; ++i) memcpy((char*)p + 4 * i, &value, 4);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemHostAlloc(void** p, size_t bytes, unsigned int flags) {
  (void)flags;
  *p = block_alloc(bytes);
  return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult CUDAAPI cuMemHostGetDevicePointer(CUdeviceptr* d, void* p, unsigned int flags) {
  (void)flags;
  *d = (CUdeviceptr)p;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr d, const void* s, size_t n, CUstream st) {
  (void)st;
  memmove((void*)d, s, n);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemcpyDtoHAsync(void* d, CUdeviceptr s, size_t n, CUstream st) {
  (void)st;
  memmove(d, (const void*)s, n);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemcpyDtoDAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) {
  (void)st;
  memmove((void*)d, (const void*)s, n);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemcpyPeerAsync(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n, CUstream st) {
  (void)dc;
  (void)sc;
  return cuMemcpyDtoDAsync(d, s, n, st);
}
static const char* end_of(CUmemorytype type, const void* host, CUdeviceptr device) {
  return type == CU_MEMORYTYPE_HOST ? (const char*)host : (const char*)device;
}
CUresult CUDAAPI cuMemcpy2DAsync(const CUDA_MEMCPY2D* c, CUstream st) {
  (void)st;
  const char* src = end_of(c->srcMemoryType, c->srcHost, c->srcDevice);
  char* dst = (char*)end_of(c->dstMemoryType, c->dstHost, c->dstDevice);
  for (size_t row = 0; row < c->Height; ++row)
    memmove(dst + (c->dstY + row) * c->dstPitch + c->dstXInBytes, src + (c->srcY + row) * c->srcPitch + c->srcXInBytes,
            c->WidthInBytes);
  return CUDA_SUCCESS;
}

/* ---- device, context, pool ---- */

CUresult CUDAAPI cuInit(unsigned int flags) {
  (void)flags;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDriverGetVersion(int* v) {
  *v = CUDA_VERSION;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGetErrorName(CUresult r, const char** s) {
  *s = r == CUDA_ERROR_OUT_OF_MEMORY ? "CUDA_ERROR_OUT_OF_MEMORY" : "CUDA_ERROR_FAKE";
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGetErrorString(CUresult r, const char** s) {
  *s = r == CUDA_ERROR_OUT_OF_MEMORY ? "out of memory" : "an error of the fake driver";
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetCount(int* n) {
  *n = 1;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGet(CUdevice* d, int ordinal) {
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *d = ordinal;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice d) {
  (void)d;
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 232448; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *v = 50 << 20; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: *v = 2619000; break;  /* an H100 SXM's HBM3: 3.35 TB/s */
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: *v = 5120; break;
    default: *v = 0;
  }
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetName(char* name, int len, CUdevice d) {
  (void)d;
  strncpy(name, FAKE_CUDA_DEVICE_NAME, (size_t)len);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice d) {
  *c = (CUcontext)(uintptr_t)(0x1000 + d);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetCurrent(CUcontext* c) {
  atomic_fetch_add(&counts.context_queries, 1);
  *c = current_context;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxSetCurrent(CUcontext c) {
  current_context = c;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetDefaultMemPool(CUmemoryPool* pool, CUdevice d) {
  *pool = (CUmemoryPool)(uintptr_t)(0x2000 + d);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute a, void* v) {
  (void)pool;
  (void)a;
  (void)v;
  return CUDA_SUCCESS;
}

/* ---- streams ---- */

CUresult CUDAAPI cuStreamCreate(CUstream* s, unsigned int flags) {
  (void)flags;
  *s = (CUstream)calloc(1, sizeof(struct stream_token));
  atomic_fetch_add(&counts.stream_creates, 1);
  return *s ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult CUDAAPI cuStreamDestroy(CUstream s) {
  atomic_fetch_add(&counts.stream_destroys, 1);
  free(s);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamSynchronize(CUstream s) {
  (void)s;
  atomic_fetch_add(&counts.synchronizes, 1);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamIsCapturing(CUstream s, CUstreamCaptureStatus* status) {
  if (is_default_stream(s) && no_context()) return CUDA_ERROR_INVALID_CONTEXT;
  *status = s && ((struct stream_token*)s)->capturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}

/* ---- modules and launches ---- */

CUresult CUDAAPI cuModuleLoadData(CUmodule* m, const void* image) {
  if (!image) return CUDA_ERROR_INVALID_IMAGE;
  *m = (CUmodule)(uintptr_t)(0x3000 + atomic_fetch_add(&counts.module_loads, 1));
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleGetFunction(CUfunction* f, CUmodule m, const char* name) {
  (void)name;
  *f = (CUfunction)m;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuFuncGetAttribute(int* v, CUfunction_attribute a, CUfunction f) {
  (void)a;
  (void)f;
  *v = 0;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
  (void)f;
  (void)a;
  (void)v;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int* n, CUfunction f, int block, size_t smem) {
  (void)f;
  *n = block <= 256 ? 4 : 2;
  /* An sm_90 SM's 228 KB, less the 1 KB the driver sets aside a CTA. */
  if (smem > 0 && (long)(233472 / (smem + 1024)) < *n) *n = (int)(233472 / (smem + 1024));
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuOccupancyMaxActiveClusters(int* n, CUfunction f, const CUlaunchConfig* config) {
  (void)f;
  *n = config && config->numAttrs ? 528 / 8 : 528;
  return CUDA_SUCCESS;
}
/* Resets what a launch records to a plain launch's: no cluster, no policy, not
 * cooperative, no parameter kept (cuLaunchKernelEx then records what it asks for). */
static void record_launch(CUstream s, unsigned grid) {
  last_launch_stream = s;
  last_launch_cluster = 1;
  last_launch_cluster_policy = 0;
  last_launch_grid = grid;
  last_launch_cooperative = 0;
  memset(last_launch_param, 0, sizeof last_launch_param);
}
CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                unsigned bz, unsigned smem, CUstream s, void** params, void** extra) {
  (void)f, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)smem, (void)params, (void)extra;
  if (no_context()) return CUDA_ERROR_INVALID_CONTEXT;
  record_launch(s, gx);
  atomic_fetch_add(&counts.launches, 1);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void** params, void** extra) {
  (void)f, (void)extra;
  if (no_context()) return CUDA_ERROR_INVALID_CONTEXT;
  const long limit = atomic_load(&cooperative_limit);
  for (unsigned i = 0; i < config->numAttrs; ++i)
    if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE && config->attrs[i].value.cooperative && limit >= 0 &&
        (long)config->gridDimX > limit)
      return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
  record_launch(config->hStream, config->gridDimX);
  /* The fake cannot know a kernel's parameter size, so only this form (the plugin's for
   * the cooperative, cluster and dependent launches that tests inspect) keeps the first
   * param_bytes of it; a plain launch, of small fixed kernels such as zero_words, keeps
   * none. */
  if (params && param_bytes > 0) memcpy(last_launch_param, params[0], param_bytes);
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
      last_launch_cluster = config->attrs[i].value.clusterDim.x;
    if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE)
      last_launch_cluster_policy = (int)config->attrs[i].value.clusterSchedulingPolicyPreference;
    if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) last_launch_cooperative = config->attrs[i].value.cooperative;
  }
  atomic_fetch_add(&counts.launches, 1);
  return CUDA_SUCCESS;
}

/* NVRTC opens libcuda.so.1 too and asks for the driver's private tables: there are
 * none here, which it takes as no driver. */
CUresult CUDAAPI cuGetExportTable(const void** table, const CUuuid* id) {
  (void)id;
  *table = NULL;
  return CUDA_ERROR_NOT_SUPPORTED;
}

/* ---- the one entry point the plugin looks up by name ---- */

#define FAKE_ENTRY(name) {#name, (void*)&name}
static const struct {
  const char* name;
  void* fn;
} entries[] = {
    FAKE_ENTRY(cuInit), FAKE_ENTRY(cuGetErrorName), FAKE_ENTRY(cuGetErrorString), FAKE_ENTRY(cuDeviceGetCount),
    FAKE_ENTRY(cuDeviceGet), FAKE_ENTRY(cuDeviceGetAttribute), FAKE_ENTRY(cuDeviceGetName),
    FAKE_ENTRY(cuDevicePrimaryCtxRetain), FAKE_ENTRY(cuCtxGetCurrent), FAKE_ENTRY(cuCtxSetCurrent),
    FAKE_ENTRY(cuDeviceGetDefaultMemPool), FAKE_ENTRY(cuMemPoolSetAttribute), FAKE_ENTRY(cuMemAlloc),
    FAKE_ENTRY(cuMemsetD32), FAKE_ENTRY(cuMemAllocAsync), FAKE_ENTRY(cuMemFreeAsync), FAKE_ENTRY(cuMemHostAlloc),
    FAKE_ENTRY(cuMemHostGetDevicePointer), FAKE_ENTRY(cuMemcpyHtoDAsync), FAKE_ENTRY(cuMemcpyDtoHAsync),
    FAKE_ENTRY(cuMemcpyDtoDAsync), FAKE_ENTRY(cuMemcpyPeerAsync), FAKE_ENTRY(cuMemcpy2DAsync),
    FAKE_ENTRY(cuStreamCreate), FAKE_ENTRY(cuStreamDestroy), FAKE_ENTRY(cuStreamSynchronize),
    FAKE_ENTRY(cuModuleLoadData), FAKE_ENTRY(cuModuleGetFunction), FAKE_ENTRY(cuOccupancyMaxActiveBlocksPerMultiprocessor),
    FAKE_ENTRY(cuOccupancyMaxActiveClusters), FAKE_ENTRY(cuFuncGetAttribute), FAKE_ENTRY(cuFuncSetAttribute),
    FAKE_ENTRY(cuStreamIsCapturing), FAKE_ENTRY(cuLaunchKernel), FAKE_ENTRY(cuLaunchKernelEx),
};

CUresult CUDAAPI cuGetProcAddress(const char* symbol, void** pfn, int version, cuuint64_t flags,
                                  CUdriverProcAddressQueryResult* status) {
  (void)version;
  (void)flags;
  for (size_t i = 0; i < sizeof entries / sizeof entries[0]; ++i)
    if (strcmp(entries[i].name, symbol) == 0) {
      *pfn = entries[i].fn;
      if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
      return CUDA_SUCCESS;
    }
  *pfn = NULL;
  if (status) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}
