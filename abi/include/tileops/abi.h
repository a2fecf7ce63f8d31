/*
 * tileops plugin ABI, version 1.
 *
 * The only interface a backend plugin and the tileops host share. C99, fixed-width
 * integers, no enums inside structs. Every struct that can grow begins with
 * `size_t struct_size` and only ever gains fields at its end; read a field a later
 * minor version added only after TILEOPS_STRUCT_HAS says it is there.
 *
 * Three small value types never grow and carry no size: tileops_device,
 * tileops_dtype (DLPack's layout) and tileops_param (passed as arrays).
 *
 * A plugin exports exactly two symbols: tileops_plugin_abi_version and
 * tileops_plugin_entry. Everything else reaches it through tileops_host_api.
 */
#ifndef TILEOPS_ABI_H
#define TILEOPS_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TILEOPS_ABI_MAJOR 1
#define TILEOPS_ABI_MINOR 0
#define TILEOPS_ABI_VERSION ((uint32_t)((TILEOPS_ABI_MAJOR << 16) | TILEOPS_ABI_MINOR))

/* True when the struct pointed to by `s` was built with `field` present. */
#define TILEOPS_STRUCT_HAS(s, field) \
  ((s)->struct_size >= offsetof(__typeof__(*(s)), field) + sizeof((s)->field))
/* Portable spelling for compilers without __typeof__: name the struct type. */
#define TILEOPS_STRUCT_HAS_T(type, s, field) \
  ((s)->struct_size >= offsetof(type, field) + sizeof(((type*)0)->field))

#if defined(__GNUC__)
#define TILEOPS_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define TILEOPS_PLUGIN_EXPORT
#endif

/* ---- status codes: map onto the host's C++ exceptions ---------------------------- */
typedef int32_t tileops_status;
#define TILEOPS_OK 0
#define TILEOPS_ERR_INVALID_ARGUMENT 1 /* -> tileops::ValueError */
#define TILEOPS_ERR_UNSUPPORTED 2      /* -> tileops::OpNotAvailableError */
#define TILEOPS_ERR_INTERNAL 3         /* -> tileops::BackendError */
#define TILEOPS_ERR_OUT_OF_MEMORY 4    /* -> tileops::BackendError */
#define TILEOPS_ERR_DEVICE 5           /* a driver or device failure -> BackendError */
#define TILEOPS_ERR_ALREADY_EXISTS 6   /* a registration that duplicates another */
#define TILEOPS_ERR_NOT_FOUND 7        /* a name nothing registered */

/* Host-owned error sink. Fill it only through tileops_host_api.error_set. */
typedef struct tileops_error tileops_error;
/* Host-owned registration transaction handed to tileops_plugin_entry. */
typedef struct tileops_registrar tileops_registrar;

/* ---- value types (frozen) ------------------------------------------------------- */

/* A device: a type name the host never parses ("cpu", "cuda", any vendor's) and an
 * index (-1 when the device has none). */
typedef struct tileops_device {
  const char* type;
  int32_t index;
} tileops_device;

/* DLPack's DLDataType layout and codes. */
typedef struct tileops_dtype {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} tileops_dtype;

#define TILEOPS_DTYPE_INT 0
#define TILEOPS_DTYPE_UINT 1
#define TILEOPS_DTYPE_FLOAT 2
#define TILEOPS_DTYPE_BFLOAT 4
#define TILEOPS_DTYPE_BOOL 6
#define TILEOPS_DTYPE_FLOAT8_E4M3FN 10
#define TILEOPS_DTYPE_FLOAT8_E5M2 12

/* Kinds of a named parameter's value. */
#define TILEOPS_PARAM_NONE 0
#define TILEOPS_PARAM_BOOL 1
#define TILEOPS_PARAM_INT 2
#define TILEOPS_PARAM_FLOAT 3
#define TILEOPS_PARAM_STRING 4
#define TILEOPS_PARAM_INT_LIST 5
#define TILEOPS_PARAM_FLOAT_LIST 6
#define TILEOPS_PARAM_DTYPE 7

/* A parameter under its manifest name; NONE is how a null default arrives. */
typedef struct tileops_param {
  const char* name;
  int32_t kind;
  int32_t reserved;
  union {
    int64_t b; /* BOOL: 0 or 1 */
    int64_t i;
    double f;
    const char* s;
    tileops_dtype dtype;
    struct {
      const int64_t* data;
      size_t len;
    } ints;
    struct {
      const double* data;
      size_t len;
    } floats;
  } u;
} tileops_param;

/* ---- tensors -------------------------------------------------------------------- */

/* A description of a tensor: no data. What a builder receives. */
typedef struct tileops_tensor_spec {
  size_t struct_size;
  tileops_device device;
  tileops_dtype dtype;
  int32_t ndim;
  const int64_t* shape;
} tileops_tensor_spec;

/* A tensor at launch. `strides` count elements. Inputs the call does not write
 * arrive contiguous; `data` already includes any view offset. */
typedef struct tileops_tensor {
  size_t struct_size;
  tileops_tensor_spec spec;
  void* data;
  const int64_t* strides;
} tileops_tensor;

/* ---- kernels -------------------------------------------------------------------- */

/* What a builder returns. The host owns it from then on and calls `release` exactly
 * once when the memo entry is dropped. `launch` is required; the rest is optional
 * (NULL). Inputs arrive in signature order (NULL for an absent optional input);
 * outputs in signature order, allocated by the host (an `alias` output points at its
 * input's memory). `stream` is the device's current stream: launch only on it.
 * Threads: launch may run on several threads at once (different streams); the host
 * never overlaps two calls of request_tune / config_json on one kernel, but either may
 * run while other threads launch it. */
typedef struct tileops_kernel {
  size_t struct_size;
  void* self;
  tileops_status (*launch)(void* self, const tileops_tensor* const* inputs, size_t n_inputs,
                           const tileops_tensor* const* outputs, size_t n_outputs, void* stream,
                           tileops_error* err);
  tileops_status (*request_tune)(void* self, const tileops_device* device, tileops_error* err);
  /* A non-empty JSON object describing the kernel's configuration, valid until the next
   * call on this kernel, or NULL. */
  const char* (*config_json)(void* self);
  void (*release)(void* self);
} tileops_kernel;

/* 1: this device is served by the target's kernels; 0 otherwise. A pure predicate:
 * thread-safe, no allocation, no lock, never fails. */
typedef int32_t (*tileops_detect_fn)(void* user, const tileops_device* device);

/* Builds the kernel of one (op, target) for one device and input signature. Inputs in
 * signature order (NULL = an optional input the call omits); params under their
 * manifest names. `out` arrives zeroed with struct_size set by the host. */
typedef tileops_status (*tileops_build_kernel_fn)(void* user, const char* op,
                                                  const tileops_tensor_spec* const* inputs,
                                                  size_t n_inputs, const tileops_param* params,
                                                  size_t n_params, tileops_kernel* out,
                                                  tileops_error* err);

/* ---- devices -------------------------------------------------------------------- */

/* What kernel selection knows of a device. An unregistered device type reports
 * arch -1, calibration NULL, sm_count 0, smem_budget 0. */
typedef struct tileops_device_facts {
  size_t struct_size;
  int32_t arch;
  const char* calibration; /* e.g. the board name; host copies it */
  int32_t sm_count;
  int64_t smem_budget;
} tileops_device_facts;

typedef tileops_status (*tileops_read_device_facts_fn)(void* user, const tileops_device* device,
                                                       tileops_device_facts* out,
                                                       tileops_error* err);

/* Memory, copies and streams for one device type. Copies where both ends are host
 * memory go through the host itself; a runtime copies between its own devices and
 * between them and host memory (the other device's type is "cpu"). An alloc that
 * returns TILEOPS_OK sets *ptr to memory, never NULL, when bytes > 0 (the host refuses
 * such an allocation as a defect of the runtime). */
typedef struct tileops_device_runtime {
  size_t struct_size;
  void* user;
  int32_t (*device_count)(void* user);
  tileops_status (*alloc)(void* user, const tileops_device* device, size_t bytes, void* stream,
                          void** ptr, tileops_error* err);
  void (*free)(void* user, const tileops_device* device, void* ptr, void* stream);
  tileops_status (*copy)(void* user, void* dst, const tileops_device* dst_device, const void* src,
                         const tileops_device* src_device, size_t bytes, void* stream,
                         tileops_error* err);
  tileops_status (*synchronize)(void* user, const tileops_device* device, void* stream,
                                tileops_error* err);
  tileops_status (*stream_create)(void* user, const tileops_device* device, void** stream,
                                  tileops_error* err);
  void (*stream_destroy)(void* user, const tileops_device* device, void* stream);
  /* Gathers a strided tensor of `src_device` into contiguous memory `dst` on the same
   * device (strides in elements). NULL: the host copies run by run through `copy`. */
  tileops_status (*copy_strided)(void* user, void* dst, const void* src,
                                 const tileops_device* device, int32_t ndim,
                                 const int64_t* shape, const int64_t* src_strides,
                                 size_t itemsize, void* stream, tileops_error* err);
  /* Makes `device` current on the calling thread for a build; NULL if the notion does
   * not apply. */
  tileops_status (*set_current)(void* user, const tileops_device* device, tileops_error* err);
} tileops_device_runtime;

/* ---- the in-tree path: kernel types --------------------------------------------- */

/* The immutable facts of one call at one kernel interface. */
typedef struct tileops_call {
  size_t struct_size;
  const char* op;
  const char* interface;
  tileops_device device;
  const tileops_device_facts* facts;
  const tileops_tensor_spec* const* tensors; /* signature order; NULL = absent */
  size_t n_tensors;
  const tileops_param* params;
  size_t n_params;
} tileops_call;

/* One implementation of a kernel interface. All pointers are copied by the host at
 * registration. */
typedef struct tileops_kernel_type {
  size_t struct_size;
  const char* op;        /* manifest op name */
  const char* key;       /* unique among the op's kernel types */
  const char* interface; /* the call site it implements */
  const char* const* devices; /* device types it runs on; empty: "cuda" */
  size_t n_devices;
  const int32_t* supported_archs; /* empty: any; else exactly one device type */
  size_t n_archs;
  int32_t general; /* 1: the fallback, below every other implementation */
  /* Keys this implementation wins over, transitively; a registration whose preferences
   * would close a cycle is refused. */
  const char* const* preferred_over;
  size_t n_preferred_over;
  void* user;
  /* TILEOPS_OK when it serves the call; otherwise writes the limit it hits into err. */
  tileops_status (*refusal)(void* user, const tileops_call* call, tileops_error* err);
  /* Writes the build identity (a NUL-terminated string) into buf; returns its length,
   * or a negative value if `cap` is too small. NULL: the identity is the call spec. */
  int32_t (*identity)(void* user, const tileops_call* call, char* buf, size_t cap);
  tileops_status (*build)(void* user, const tileops_call* call, tileops_kernel* out,
                          tileops_error* err);
} tileops_kernel_type;

/* ---- the host ------------------------------------------------------------------- */

#define TILEOPS_LOG_TRACE 0
#define TILEOPS_LOG_DEBUG 1
#define TILEOPS_LOG_INFO 2
#define TILEOPS_LOG_WARN 3
#define TILEOPS_LOG_ERROR 4

typedef struct tileops_host_api {
  size_t struct_size;
  uint32_t abi_major;
  uint32_t abi_minor;
  tileops_status (*register_detector)(tileops_registrar* reg, const char* target,
                                      tileops_detect_fn detect, void* user, tileops_error* err);
  tileops_status (*register_kernel_builder)(tileops_registrar* reg, const char* op,
                                            const char* target, tileops_build_kernel_fn build,
                                            void* user, tileops_error* err);
  tileops_status (*register_device_facts)(tileops_registrar* reg, const char* device_type,
                                          tileops_read_device_facts_fn read, void* user,
                                          tileops_error* err);
  tileops_status (*register_device_runtime)(tileops_registrar* reg, const char* device_type,
                                            const tileops_device_runtime* runtime,
                                            tileops_error* err);
  tileops_status (*register_kernel_type)(tileops_registrar* reg, const tileops_kernel_type* type,
                                         tileops_error* err);
  /* The calling thread's current stream for `device` (NULL: the device's default; also
   * the answer for a NULL device or device type). */
  void* (*current_stream)(const tileops_device* device);
  void (*error_set)(tileops_error* err, tileops_status status, const char* message);
  void (*log)(int32_t level, const char* message);
} tileops_host_api;

/* Filled by the plugin inside its entry; the host copies the strings. */
typedef struct tileops_plugin_info {
  size_t struct_size;
  const char* name;
  const char* version;
  const char* build_id;
} tileops_plugin_info;

/* ---- the two exports ------------------------------------------------------------ */

#define TILEOPS_PLUGIN_ABI_VERSION_SYMBOL "tileops_plugin_abi_version"
#define TILEOPS_PLUGIN_ENTRY_SYMBOL "tileops_plugin_entry"

typedef uint32_t (*tileops_plugin_abi_version_fn)(void);
typedef tileops_status (*tileops_plugin_entry_fn)(const tileops_host_api* host,
                                                  tileops_registrar* reg,
                                                  tileops_plugin_info* info, tileops_error* err);

#ifdef __cplusplus
}
#endif

#endif /* TILEOPS_ABI_H */
