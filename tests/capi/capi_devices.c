/* A C99 application of the C API's devices, streams and DLPack exchange, on the acme
 * fixture's two host-memory devices: data copied to a device and back, an op launched
 * on the thread's current stream (acme checks the stream it is handed), what an op
 * says of itself and its tuning, the default target, arrays passed through DLPack, the
 * plugins and targets listed.
 * Exits non-zero on the first broken expectation. */
#include "expect.h"

#include <tileops/tileops.h>

#include <dlpack/dlpack.h>

#include <math.h>
#include <string.h>

static const tileops_device kAcme0 = {"acme", 0};
static const tileops_device kAcme1 = {"acme", 1};

/* Softmax over the last dim of x [2, 3] on acme:0, on a stream of the caller's; the
 * result copied back into caller memory. */
static int softmax_on_a_device_stream(void) {
  float x[6] = {1, 2, 3, -1, 0, 1};
  float y[6] = {0};
  const int64_t shape[2] = {2, 3};
  tileops_param dim;
  tileops_op* op = NULL;
  tileops_array *hx = NULL, *hy = NULL, *dx = NULL, *back = NULL;
  tileops_array* outputs[1] = {NULL};
  void* stream = NULL;
  tileops_device where;
  int r, i;

  dim.name = "dim";
  dim.kind = TILEOPS_PARAM_INT;
  dim.u.i = -1;
  EXPECT(tileops_op_create("SoftmaxFwdOp", &dim, 1, NULL, &op) == TILEOPS_OK);
  EXPECT(tileops_array_from_blob(x, kCpu, kF32, 2, shape, NULL, &hx) == TILEOPS_OK);
  EXPECT(tileops_array_from_blob(y, kCpu, kF32, 2, shape, NULL, &hy) == TILEOPS_OK);

  EXPECT(tileops_current_stream(kAcme0) == NULL);
  EXPECT(tileops_stream_create(kAcme0, &stream) == TILEOPS_OK && stream != NULL);
  EXPECT(tileops_set_current_stream(kAcme0, stream) == TILEOPS_OK);
  EXPECT(tileops_current_stream(kAcme0) == stream);
  EXPECT(tileops_current_stream(kAcme1) == NULL); /* per device */

  EXPECT(tileops_op_target(op) == NULL); /* settled by the first call */
  EXPECT(tileops_array_to(hx, kAcme0, &dx) == TILEOPS_OK);
  where = tileops_array_device(dx);
  EXPECT(strcmp(where.type, "acme") == 0 && where.index == 0);
  EXPECT(tileops_array_data(dx) != (void*)x);
  EXPECT(tileops_op_call(op, &dx, 1, outputs, 1) == TILEOPS_OK);
  EXPECT(tileops_op_target(op) != NULL && strcmp(tileops_op_target(op), "acme") == 0);
  EXPECT(tileops_stream_synchronize(kAcme0, stream) == TILEOPS_OK);
  EXPECT(tileops_array_copy(hy, outputs[0]) == TILEOPS_OK);
  for (r = 0; r < 2; ++r) {
    double total = 0;
    for (i = 0; i < 3; ++i) total += exp(x[r * 3 + i]);
    for (i = 0; i < 3; ++i) EXPECT(fabs(y[r * 3 + i] - exp(x[r * 3 + i]) / total) < 1e-6);
  }
  /* Back to the host through tileops_array_to: a new contiguous array with the values. */
  EXPECT(tileops_array_to(outputs[0], kCpu, &back) == TILEOPS_OK);
  EXPECT(memcmp(tileops_array_data(back), y, sizeof y) == 0);
  tileops_array_release(back);
  tileops_array_release(outputs[0]);
  outputs[0] = NULL;

  /* The stream is honoured: made current for acme:1, acme's launch sees a stream of
   * acme:0 for tensors on acme:1 and refuses it. */
  tileops_array_release(dx);
  EXPECT(tileops_array_to(hx, kAcme1, &dx) == TILEOPS_OK);
  EXPECT(tileops_set_current_stream(kAcme1, stream) == TILEOPS_OK);
  EXPECT(tileops_op_call(op, &dx, 1, outputs, 1) != TILEOPS_OK);
  EXPECT(strstr(tileops_last_error(), "launched on a stream of acme:0 for tensors on acme:1") != NULL);
  EXPECT(outputs[0] == NULL);
  EXPECT(tileops_set_current_stream(kAcme1, NULL) == TILEOPS_OK);
  EXPECT(tileops_op_call(op, &dx, 1, outputs, 1) == TILEOPS_OK);
  tileops_array_release(outputs[0]);

  EXPECT(tileops_set_current_stream(kAcme0, NULL) == TILEOPS_OK);
  EXPECT(tileops_stream_destroy(kAcme0, stream) == TILEOPS_OK);
  tileops_array_release(dx);
  tileops_array_release(hx);
  tileops_array_release(hy);
  tileops_op_destroy(op);
  return 0;
}

/* What an op says of itself, its tuning, and the process's default target. */
static int op_introspection(void) {
  const float x[2] = {1, 2};
  const int64_t shape[1] = {2};
  tileops_op* op = NULL;
  tileops_array *hx = NULL, *dx = NULL;
  tileops_array* outputs[1] = {NULL};
  const char* json = NULL;
  EXPECT(tileops_op_create("SoftmaxFwdOp", NULL, 0, NULL, &op) == TILEOPS_OK);
  EXPECT(strcmp(tileops_op_input_name(op, 0), "x") == 0 && tileops_op_input_name(op, 1) == NULL);
  EXPECT(strcmp(tileops_op_output_name(op, 0), "y") == 0 && tileops_op_output_name(op, 1) == NULL);
  EXPECT(tileops_op_input_name(NULL, 0) == NULL && tileops_op_target(NULL) == NULL);
  EXPECT(tileops_op_kernel_config(op, &json) == TILEOPS_OK && strcmp(json, "") == 0); /* none built */

  EXPECT(tileops_op_request_tune(op) == TILEOPS_OK);
  EXPECT(tileops_array_from_blob((void*)x, kCpu, kF32, 1, shape, NULL, &hx) == TILEOPS_OK);
  EXPECT(tileops_array_to(hx, kAcme1, &dx) == TILEOPS_OK);
  EXPECT(tileops_op_call(op, &dx, 1, outputs, 1) == TILEOPS_OK);
  EXPECT(tileops_op_kernel_config(op, &json) == TILEOPS_OK);
  EXPECT(strstr(json, "\"kernel\":\"acme_softmax\"") != NULL);
  EXPECT(strstr(json, "\"tuned\":{\"acme:1\":1}") != NULL); /* tuned once, before its launch */
  EXPECT(tileops_op_kernel_config(op, NULL) == TILEOPS_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tileops_last_error(), "tileops_op_kernel_config: json is NULL") == 0);
  EXPECT(tileops_op_request_tune(NULL) == TILEOPS_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tileops_last_error(), "tileops_op_request_tune: op is NULL") == 0);

  EXPECT(tileops_set_default_target("nope") == TILEOPS_ERR_NOT_FOUND);
  EXPECT(strcmp(tileops_last_error_kind(), "UnknownTargetError") == 0);
  /* "builtin" ahead of detection: acme tensors then find no in-tree kernel. */
  EXPECT(tileops_set_default_target("builtin") == TILEOPS_OK);
  tileops_op_destroy(op);
  EXPECT(tileops_op_create("SoftmaxFwdOp", NULL, 0, NULL, &op) == TILEOPS_OK);
  tileops_array_release(outputs[0]);
  outputs[0] = NULL;
  EXPECT(tileops_op_call(op, &dx, 1, outputs, 1) == TILEOPS_ERR_UNSUPPORTED);
  EXPECT(tileops_set_default_target(NULL) == TILEOPS_OK);
  EXPECT(tileops_op_call(op, &dx, 1, outputs, 1) == TILEOPS_OK);
  EXPECT(strcmp(tileops_op_target(op), "acme") == 0);
  tileops_array_release(outputs[0]);
  tileops_array_release(dx);
  tileops_array_release(hx);
  tileops_op_destroy(op);
  return 0;
}

static int deleted;
static void count_deletion(DLManagedTensor* self) {
  (void)self;
  ++deleted;
}

static int dlpack_exchange(void) {
  float values[6] = {0, 1, 2, 3, 4, 5};
  const int64_t shape[2] = {2, 3};
  const int64_t transposed[2] = {1, 3}; /* [3, 2] view of the same memory */
  int64_t dl_shape[2] = {3, 2};
  int64_t backwards[1] = {-1};
  tileops_array *a = NULL, *back = NULL, *imported = NULL;
  DLManagedTensor* m = NULL;
  DLManagedTensor mine;
  const int64_t view_shape[2] = {3, 2};

  /* Out: shape, strides and data shared; in again: the same memory. */
  EXPECT(tileops_array_from_blob(values, kCpu, kF32, 2, view_shape, transposed, &a) == TILEOPS_OK);
  EXPECT(tileops_array_strides(a)[0] == 1 && tileops_array_strides(a)[1] == 3);
  EXPECT(tileops_array_to_dlpack(a, &m) == TILEOPS_OK);
  EXPECT(m->dl_tensor.data == (void*)values && m->dl_tensor.device.device_type == kDLCPU);
  EXPECT(m->dl_tensor.ndim == 2 && m->dl_tensor.shape[0] == 3 && m->dl_tensor.strides[1] == 3);
  tileops_array_release(a); /* the export keeps the memory's record alive */
  EXPECT(tileops_array_from_dlpack(m, &back) == TILEOPS_OK);
  EXPECT(tileops_array_data(back) == (void*)values);
  EXPECT(tileops_array_shape(back)[0] == 3 && tileops_array_strides(back)[0] == 1);
  tileops_array_release(back); /* runs the export's deleter */

  /* A producer's tensor: its deleter runs once, when the array goes. */
  memset(&mine, 0, sizeof mine);
  mine.dl_tensor.data = values;
  mine.dl_tensor.device.device_type = kDLCPU;
  mine.dl_tensor.ndim = 2;
  mine.dl_tensor.dtype.code = kDLFloat;
  mine.dl_tensor.dtype.bits = 32;
  mine.dl_tensor.dtype.lanes = 1;
  mine.dl_tensor.shape = dl_shape;
  mine.deleter = count_deletion;
  dl_shape[0] = shape[0];
  dl_shape[1] = shape[1];
  EXPECT(tileops_array_from_dlpack(&mine, &imported) == TILEOPS_OK);
  EXPECT(tileops_array_strides(imported)[0] == 3 && deleted == 0);
  tileops_array_release(imported);
  EXPECT(deleted == 1);

  /* Refused: named, and not taken (the deleter does not run). */
  mine.dl_tensor.ndim = 1;
  mine.dl_tensor.strides = backwards;
  imported = NULL;
  EXPECT(tileops_array_from_dlpack(&mine, &imported) == TILEOPS_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tileops_last_error(),
                "Tensor::from_dlpack: strides [-1] of shape [2] step backwards in dimension 0; only "
                "non-negative strides are supported (make a contiguous copy first)") == 0);
  EXPECT(imported == NULL && deleted == 1);
  EXPECT(tileops_array_from_dlpack(NULL, &imported) == TILEOPS_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tileops_last_error(), "Tensor::from_dlpack: null tensor") == 0);
  EXPECT(tileops_array_from_dlpack(&mine, NULL) == TILEOPS_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tileops_last_error(), "tileops_array_from_dlpack: out is NULL") == 0);
  EXPECT(tileops_array_to_dlpack(NULL, &m) == TILEOPS_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tileops_last_error(), "tileops_array_to_dlpack: array is NULL") == 0);
  EXPECT(deleted == 1);
  return 0;
}

/* What a C application can list: the plugins that loaded (acme among them, from the
 * plugin path) and the registered targets, sorted. */
static int plugin_listing(void) {
  const size_t n = tileops_plugin_count();
  const char *path = NULL, *name = NULL, *version = NULL;
  const char* const* targets = NULL;
  size_t i, n_targets = 0, acme_found = 0, cpu_ref_found = 0;
  int builtin = -1;
  char expected[128];
  EXPECT(n >= 3); /* acme, acme_extra, cpu_ref (and the CUDA plugin where it was built) */
  for (i = 0; i < n; ++i) {
    EXPECT(tileops_plugin(i, &path, &name, &version, &builtin) == TILEOPS_OK);
    if (strcmp(name, "acme") == 0) {
      ++acme_found;
      EXPECT(strcmp(version, "1.0.0") == 0);
      EXPECT(builtin == 0);
      EXPECT(strstr(path, "libtileops_acme.so") != NULL);
    }
  }
  EXPECT(acme_found == 1);
  EXPECT(tileops_plugin(0, NULL, NULL, NULL, NULL) == TILEOPS_OK);
  EXPECT(tileops_plugin(n, &path, &name, &version, &builtin) == TILEOPS_ERR_INVALID_ARGUMENT);
  snprintf(expected, sizeof expected, "plugin %zu does not exist; %zu loaded", n, n);
  EXPECT(strcmp(tileops_last_error(), expected) == 0);

  EXPECT(tileops_targets(&targets, &n_targets) == TILEOPS_OK);
  EXPECT(n_targets >= 2);
  for (i = 0; i < n_targets; ++i) {
    if (i > 0) EXPECT(strcmp(targets[i - 1], targets[i]) < 0);
    acme_found += strcmp(targets[i], "acme") == 0;
    cpu_ref_found += strcmp(targets[i], "cpu_ref") == 0;
  }
  EXPECT(acme_found == 2 && cpu_ref_found == 1);
  EXPECT(tileops_targets(NULL, &n_targets) == TILEOPS_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tileops_last_error(), "tileops_targets: names is NULL") == 0);
  EXPECT(tileops_targets(&targets, NULL) == TILEOPS_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tileops_last_error(), "tileops_targets: count is NULL") == 0);
  return 0;
}

static int errors(void) {
  float x[2] = {0};
  const int64_t two[1] = {2}, three[1] = {3};
  tileops_array *a = NULL, *b = NULL;
  tileops_device untyped;
  void* stream = NULL;
  untyped.type = NULL;
  untyped.index = 0;
  EXPECT(tileops_array_from_blob(x, kCpu, kF32, 1, two, NULL, &a) == TILEOPS_OK);
  EXPECT(tileops_array_empty(kAcme0, kF32, 1, three, &b) == TILEOPS_OK);
  EXPECT(tileops_array_copy(b, a) == TILEOPS_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tileops_last_error(), "Tensor::copy_from: source is float32[2], destination is float32[3]") == 0);
  EXPECT(tileops_array_copy(NULL, a) == TILEOPS_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tileops_last_error(), "tileops_array_copy: dst is NULL") == 0);
  EXPECT(tileops_array_to(a, untyped, &b) == TILEOPS_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tileops_last_error(), "tileops_array_to: device.type is NULL") == 0);
  {
    tileops_device nowhere;
    nowhere.type = "nowhere";
    nowhere.index = 0;
    EXPECT(tileops_stream_create(nowhere, &stream) == TILEOPS_ERR_INTERNAL);
    EXPECT(strcmp(tileops_last_error_kind(), "BackendError") == 0);
    EXPECT(strstr(tileops_last_error(), "no device runtime for device type 'nowhere'") != NULL);
  }
  EXPECT(tileops_stream_create(kAcme0, NULL) == TILEOPS_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tileops_last_error(), "tileops_stream_create: out is NULL") == 0);
  EXPECT(tileops_set_current_stream(untyped, NULL) == TILEOPS_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tileops_last_error(), "tileops_set_current_stream: device.type is NULL") == 0);
  EXPECT(tileops_current_stream(untyped) == NULL);
  tileops_array_release(a);
  tileops_array_release(b);
  return 0;
}

int main(void) {
  EXPECT(tileops_load_plugins() == TILEOPS_OK);
  EXPECT(tileops_load_failure_count() == 0);
  if (softmax_on_a_device_stream() != 0) return 1;
  if (op_introspection() != 0) return 1;
  if (dlpack_exchange() != 0) return 1;
  if (plugin_listing() != 0) return 1;
  if (errors() != 0) return 1;
  puts("C API devices, streams, ops and DLPack: all expectations met");
  return 0;
}
