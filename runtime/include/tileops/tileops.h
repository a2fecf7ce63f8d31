/*
 * The tileops C API, for applications written in C (or any language with a C FFI).
 *
 * Every fallible function returns a tileops_status (TILEOPS_OK on success); the
 * message of the calling thread's last failure is tileops_last_error(). A NULL where
 * one of them needs a pointer (an out slot, a non-empty array or list, the op) is
 * TILEOPS_ERR_INVALID_ARGUMENT, naming it. The accessors (tileops_array_data, ...)
 * take valid handles. Value types (devices, dtypes, params, statuses) are the plugin
 * ABI's. Threads: an op may be called from several threads at once, as in C++
 * (tileops/op.hpp); destroying a handle must not overlap its use.
 */
#ifndef TILEOPS_TILEOPS_H
#define TILEOPS_TILEOPS_H

#include <tileops/abi.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tileops_op tileops_op;         /* an op instance */
typedef struct tileops_array tileops_array;   /* a tensor owned by the runtime */

/* The message of this thread's last failed call ("" if none). Valid until the next
 * call from this thread. */
const char* tileops_last_error(void);
/* The exception class behind the last failure: "ValueError", "OpNotAvailableError",
 * "UnknownTargetError", "AmbiguousTargetError", "BackendError", or "" if none. */
const char* tileops_last_error_kind(void);

/* ---- plugins ---- */
tileops_status tileops_load_plugins(void);
size_t tileops_load_failure_count(void);
/* Strings stay valid for the life of the process. */
tileops_status tileops_load_failure(size_t index, const char** path, const char** stage,
                                    const char** reason);

/* ---- tensors ---- */
/* Wraps caller memory (not freed by tileops). `strides` (elements) may be NULL for
 * contiguous. */
tileops_status tileops_array_from_blob(void* data, tileops_device device, tileops_dtype dtype,
                                       int32_t ndim, const int64_t* shape,
                                       const int64_t* strides, tileops_array** out);
/* Allocates through the device's runtime. */
tileops_status tileops_array_empty(tileops_device device, tileops_dtype dtype, int32_t ndim,
                                   const int64_t* shape, tileops_array** out);
void tileops_array_release(tileops_array* array);
void* tileops_array_data(const tileops_array* array);
int32_t tileops_array_ndim(const tileops_array* array);
const int64_t* tileops_array_shape(const tileops_array* array);
tileops_dtype tileops_array_dtype(const tileops_array* array);

/* ---- ops ---- */
/* `target`: NULL decides from the inputs' device; "builtin" forces the in-tree
 * kernels; any other name must be a registered target. */
tileops_status tileops_op_create(const char* name, const tileops_param* params, size_t n_params,
                                 const char* target, tileops_op** out);
void tileops_op_destroy(tileops_op* op);
size_t tileops_op_num_inputs(const tileops_op* op);
size_t tileops_op_num_outputs(const tileops_op* op);
/* inputs: one per signature input, NULL for an omitted optional one.
 * outputs: one slot per signature output; a NULL slot receives a new array (release
 * it with tileops_array_release), a non-NULL one is the caller's output buffer. */
tileops_status tileops_op_call(tileops_op* op, tileops_array* const* inputs, size_t n_inputs,
                               tileops_array** outputs, size_t n_outputs);

#ifdef __cplusplus
}
#endif

#endif /* TILEOPS_TILEOPS_H */
