/*
 * The tileops C API, for applications written in C (or any language with a C FFI).
 *
 * Every fallible function returns a tileops_status (TILEOPS_OK on success); the
 * message of the calling thread's last failure is tileops_last_error(). A NULL where
 * one of them needs a pointer (an out slot, a non-empty array or list, the op) is
 * TILEOPS_ERR_INVALID_ARGUMENT, naming it. The accessors (tileops_array_data, ...)
 * answer a zero value for a NULL handle: NULL pointers, ndim -1, counts 0, a dtype of
 * zeros, a device of type NULL. Value types (devices, dtypes, params, statuses) are the plugin
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
struct DLManagedTensor;                       /* <dlpack/dlpack.h> */

/* The message of this thread's last failed call ("" if none). Valid until the next
 * call from this thread. */
const char* tileops_last_error(void);
/* The exception class behind the last failure: "ValueError", "OpNotAvailableError",
 * "UnknownTargetError", "AmbiguousTargetError", "BackendError", or "" if none. */
const char* tileops_last_error_kind(void);

/* ---- version (tileops/version.hpp) ---- */
/* The libtileops this process runs ("major.minor.patch"), which may be newer than the
 * headers the application was built with; its plugin ABI, (major << 16) | minor. */
const char* tileops_version(void);
uint32_t tileops_abi_version(void);

/* ---- logging (tileops/log.hpp) ---- */
/* The runtime's warnings and every plugin's records, by default written to stderr from
 * the level TILEOPS_LOG_LEVEL names. A sink receives each record at or above the log
 * level (TILEOPS_LOG_TRACE .. TILEOPS_LOG_ERROR) and its message, valid during the call,
 * on the thread that logs it; several threads may log at once. A record logged while
 * this thread is inside the sink goes to stderr instead. The sink may ask for the plugins
 * and load failures: a load failure's warning comes once the failure is listed, and a
 * sink called by the first load, on the loading thread, gets what has loaded so far. */
typedef void (*tileops_log_sink)(void* user, int32_t level, const char* message);
/* Replaces the sink; NULL restores stderr. Once it returns the old sink is not called
 * again. Called from within the sink: TILEOPS_ERR_INVALID_ARGUMENT. */
tileops_status tileops_set_log_sink(tileops_log_sink sink, void* user);
#define TILEOPS_LOG_OFF 5 /* a log level that lets no record through */
/* Records below `level` (TILEOPS_LOG_TRACE .. TILEOPS_LOG_OFF) are dropped. */
tileops_status tileops_set_log_level(int32_t level);
int32_t tileops_log_level(void);

/* ---- plugins ---- */
tileops_status tileops_load_plugins(void);
/* Any thread may read these while another loads a plugin entry (which may append). */
size_t tileops_load_failure_count(void);
/* Strings stay valid for the life of the process. */
tileops_status tileops_load_failure(size_t index, const char** path, const char** stage,
                                    const char** reason);
/* The plugins that loaded, in load order (those that failed: tileops_load_failure);
 * `builtin` is 1 for one loaded from the runtime's own directory. Any out-pointer may be
 * NULL. Strings stay valid for the life of the process. */
size_t tileops_plugin_count(void);
tileops_status tileops_plugin(size_t index, const char** path, const char** name,
                              const char** version, int* builtin);
/* The registered target names, sorted: *names points at *count strings. The array and
 * its strings stay valid for the life of the process; a plugin loaded later can make a
 * later call answer a different array. */
tileops_status tileops_targets(const char* const** names, size_t* count);

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
const int64_t* tileops_array_strides(const tileops_array* array); /* in elements */
tileops_dtype tileops_array_dtype(const tileops_array* array);
/* The type string stays valid for the life of the process. */
tileops_device tileops_array_device(const tileops_array* array);
/* Copies `src` (any device, any strides) into `dst` (contiguous, same dtype and shape,
 * any device), on the current streams; a copy into host memory from a device has
 * finished when this returns. */
tileops_status tileops_array_copy(tileops_array* dst, const tileops_array* src);
/* A copy of `array` on `device` (contiguous), or, when it already lives there, a new
 * handle to the same memory. */
tileops_status tileops_array_to(const tileops_array* array, tileops_device device, tileops_array** out);

/* ---- DLPack ---- */
/* Takes ownership of `managed` (its deleter runs when the last array viewing it is
 * released); on failure nothing is taken. */
tileops_status tileops_array_from_dlpack(struct DLManagedTensor* managed, tileops_array** out);
/* A DLPack view of `array` that keeps its memory alive until the view's deleter runs. */
tileops_status tileops_array_to_dlpack(const tileops_array* array, struct DLManagedTensor** out);

/* ---- streams ---- */
/* Streams are the device type's handles (a CUstream for "cuda"); NULL is the device's
 * default stream. Ops called from a thread launch on, and allocate on, that thread's
 * current stream of the device. */
tileops_status tileops_stream_create(tileops_device device, void** out);
/* Release the arrays allocated on `stream` first: their memory is freed on it. */
tileops_status tileops_stream_destroy(tileops_device device, void* stream);
/* The calling thread's current stream for `device` (NULL: the default). */
void* tileops_current_stream(tileops_device device);
/* Makes `stream` current for `device` on the calling thread until set again (C++:
 * tileops::StreamGuard, which also restores the previous one). */
tileops_status tileops_set_current_stream(tileops_device device, void* stream);
/* Waits for the work queued on `stream` of `device` (NULL: the default stream). */
tileops_status tileops_stream_synchronize(tileops_device device, void* stream);

/* ---- ops ---- */
/* `target`: NULL decides from the inputs' device; "builtin" forces the in-tree
 * kernels; any other name must be a registered target. */
tileops_status tileops_op_create(const char* name, const tileops_param* params, size_t n_params,
                                 const char* target, tileops_op** out);
void tileops_op_destroy(tileops_op* op);
size_t tileops_op_num_inputs(const tileops_op* op);
size_t tileops_op_num_outputs(const tileops_op* op);
/* The manifest's name of input or output `index`, NULL past the end; valid while the
 * op lives. */
const char* tileops_op_input_name(const tileops_op* op, size_t index);
const char* tileops_op_output_name(const tileops_op* op, size_t index);
/* The target the op settled on ("builtin" for the in-tree kernels), NULL before its
 * first call and after a failed one. Valid until this thread's next call of it. */
const char* tileops_op_target(const tileops_op* op);
/* Enters tuned mode: the kernels built so far and from now on are tuned before use. */
tileops_status tileops_op_request_tune(tileops_op* op);
/* The op's first non-empty kernel configuration, a JSON object, or "" when none.
 * Valid until this thread's next call of it. */
tileops_status tileops_op_kernel_config(const tileops_op* op, const char** json);
/* The process-wide default target, ahead of device detection ("builtin" turns
 * substitution off); NULL restores detection. An unregistered name is
 * TILEOPS_ERR_NOT_FOUND. */
tileops_status tileops_set_default_target(const char* target);
/* inputs: one per signature input, NULL for an omitted optional one.
 * outputs: one slot per signature output; a NULL slot receives a new array (release
 * it with tileops_array_release), a non-NULL one is the caller's output buffer. */
tileops_status tileops_op_call(tileops_op* op, tileops_array* const* inputs, size_t n_inputs,
                               tileops_array** outputs, size_t n_outputs);

#ifdef __cplusplus
}
#endif

#endif /* TILEOPS_TILEOPS_H */
