/* A C99 application of the C API: the runtime's version, plugin failures, an op created
 * and called on caller memory, errors read back. Exits non-zero on the first broken expectation. */
#include "expect.h"

#include <tileops/tileops.h>

#include <math.h>
#include <string.h>

static int rms_norm_on_caller_memory(void) {
  float x[2 * 4] = {1, 2, 3, 4, -1, 0.5f, 2, -3};
  float w[4] = {1, 0.5f, 2, 1};
  float y[2 * 4];
  const int64_t shape_x[2] = {2, 4}, shape_w[1] = {4};
  const int64_t normalized_shape[1] = {4};
  tileops_param params[2];
  tileops_op* op = NULL;
  tileops_array *ax = NULL, *aw = NULL, *ay = NULL;
  tileops_array* inputs[2];
  int r, i;

  params[0].name = "normalized_shape";
  params[0].kind = TILEOPS_PARAM_INT_LIST;
  params[0].u.ints.data = normalized_shape;
  params[0].u.ints.len = 1;
  params[1].name = "eps";
  params[1].kind = TILEOPS_PARAM_FLOAT;
  params[1].u.f = 1e-6;
  EXPECT(tileops_op_create("RMSNormFwdOp", params, 2, NULL, &op) == TILEOPS_OK);
  EXPECT(tileops_op_num_inputs(op) == 2 && tileops_op_num_outputs(op) == 1);
  EXPECT(tileops_array_from_blob(x, kCpu, kF32, 2, shape_x, NULL, &ax) == TILEOPS_OK);
  EXPECT(tileops_array_from_blob(w, kCpu, kF32, 1, shape_w, NULL, &aw) == TILEOPS_OK);
  EXPECT(tileops_array_from_blob(y, kCpu, kF32, 2, shape_x, NULL, &ay) == TILEOPS_OK);
  inputs[0] = ax;
  inputs[1] = aw;
  /* RMSNorm's output takes no caller buffer: the runtime allocates it. */
  {
    tileops_array* outputs[1] = {NULL};
    EXPECT(tileops_op_call(op, inputs, 2, outputs, 1) == TILEOPS_OK);
    EXPECT(tileops_array_ndim(outputs[0]) == 2 && tileops_array_shape(outputs[0])[1] == 4);
    for (r = 0; r < 2; ++r) {
      double ss = 0;
      for (i = 0; i < 4; ++i) ss += (double)x[r * 4 + i] * x[r * 4 + i];
      for (i = 0; i < 4; ++i) {
        double expected = x[r * 4 + i] / sqrt(ss / 4 + 1e-6) * w[i];
        double got = ((const float*)tileops_array_data(outputs[0]))[r * 4 + i];
        EXPECT(fabs(got - expected) <= 1e-5 * fabs(expected) + 1e-6);
      }
    }
    tileops_array_release(outputs[0]);
  }
  /* A bad shape is refused with the manifest's message. */
  inputs[1] = ay;
  {
    tileops_array* outputs[1] = {NULL};
    EXPECT(tileops_op_call(op, inputs, 2, outputs, 1) == TILEOPS_ERR_INVALID_ARGUMENT);
    EXPECT(strcmp(tileops_last_error_kind(), "ValueError") == 0);
    EXPECT(strstr(tileops_last_error(), "input 'weight' has shape [2, 4]") != NULL);
  }
  tileops_array_release(ax);
  tileops_array_release(aw);
  tileops_array_release(ay);
  tileops_op_destroy(op);
  return 0;
}

static int errors(void) {
  const int64_t shape[2] = {(int64_t)1 << 62, 1};
  tileops_array* a = NULL;
  tileops_op* op = NULL;
  EXPECT(tileops_array_empty(kCpu, kF32, -1, shape, &a) == TILEOPS_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tileops_last_error(), "tileops_array_empty: ndim -1") == 0);
  EXPECT(tileops_array_empty(kCpu, kF32, 2, NULL, &a) == TILEOPS_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tileops_last_error(), "tileops_array_empty: ndim 2 with a null shape") == 0);
  EXPECT(tileops_array_from_blob(NULL, kCpu, kF32, -2, shape, NULL, &a) == TILEOPS_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tileops_last_error(), "tileops_array_from_blob: ndim -2") == 0);
  EXPECT(tileops_array_empty(kCpu, kF32, 2, shape, &a) == TILEOPS_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tileops_last_error(),
                "Tensor::empty: shape [4611686018427387904, 1] of float32 is more than 2^63 bytes") == 0);
  EXPECT(a == NULL);
  {
    tileops_device untyped;
    untyped.type = NULL;
    untyped.index = 0;
    EXPECT(tileops_array_empty(untyped, kF32, 1, shape + 1, &a) == TILEOPS_ERR_INVALID_ARGUMENT);
    EXPECT(strcmp(tileops_last_error(), "tileops_array_empty: device.type is NULL") == 0);
    EXPECT(tileops_array_from_blob(NULL, untyped, kF32, 0, NULL, NULL, &a) == TILEOPS_ERR_INVALID_ARGUMENT);
    EXPECT(strcmp(tileops_last_error(), "tileops_array_from_blob: device.type is NULL") == 0);
  }
  EXPECT(tileops_array_from_blob(NULL, kCpu, kF32, 1, shape + 1, NULL, &a) == TILEOPS_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tileops_last_error(), "Tensor::from_blob: data is NULL under shape [1] of float32 (4 bytes)") == 0);
  EXPECT(a == NULL);
  EXPECT(tileops_array_empty(kCpu, kF32, 1, shape, NULL) == TILEOPS_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tileops_last_error(), "tileops_array_empty: out is NULL") == 0);
  EXPECT(tileops_op_create("SoftmaxFwdOp", NULL, 2, NULL, &op) == TILEOPS_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tileops_last_error(), "tileops_op_create: params is NULL") == 0);
  {
    tileops_param list;
    list.name = "dim";
    list.kind = TILEOPS_PARAM_INT_LIST;
    list.u.ints.data = NULL;
    list.u.ints.len = 3;
    EXPECT(tileops_op_create("SumFwdOp", &list, 1, NULL, &op) == TILEOPS_ERR_INVALID_ARGUMENT);
    EXPECT(strcmp(tileops_last_error(), "parameter 'dim': a list of 3 elements at NULL") == 0);
  }
  EXPECT(tileops_op_create("SoftmaxFwdOp", NULL, 0, NULL, &op) == TILEOPS_OK);
  EXPECT(tileops_op_call(NULL, NULL, 0, NULL, 0) == TILEOPS_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tileops_last_error(), "tileops_op_call: op is NULL") == 0);
  EXPECT(tileops_op_call(op, NULL, 1, NULL, 0) == TILEOPS_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tileops_last_error(), "tileops_op_call: inputs is NULL") == 0);
  EXPECT(tileops_op_call(op, &a, 1, NULL, 1) == TILEOPS_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(tileops_last_error(), "tileops_op_call: outputs is NULL") == 0);
  tileops_op_destroy(op);
  op = NULL;
  /* The accessors answer zero values for NULL handles. */
  EXPECT(tileops_array_data(NULL) == NULL && tileops_array_ndim(NULL) == -1);
  EXPECT(tileops_array_shape(NULL) == NULL && tileops_array_strides(NULL) == NULL);
  EXPECT(tileops_array_dtype(NULL).bits == 0 && tileops_array_device(NULL).type == NULL);
  EXPECT(tileops_op_num_inputs(NULL) == 0 && tileops_op_num_outputs(NULL) == 0);
  tileops_array_release(NULL);
  tileops_op_destroy(NULL);
  EXPECT(tileops_op_create("RMSNormFwOp", NULL, 0, NULL, &op) == TILEOPS_ERR_INVALID_ARGUMENT);
  EXPECT(strstr(tileops_last_error(), "did you mean RMSNormFwdOp") != NULL);
  EXPECT(tileops_op_create("SoftmaxFwdOp", NULL, 0, "nope", &op) == TILEOPS_ERR_NOT_FOUND);
  EXPECT(strcmp(tileops_last_error_kind(), "UnknownTargetError") == 0);
  return 0;
}

int main(void) {
  EXPECT(strcmp(tileops_version(), TILEOPS_EXPECTED_VERSION) == 0);
  EXPECT(tileops_abi_version() == TILEOPS_ABI_VERSION);
  EXPECT(tileops_load_plugins() == TILEOPS_OK);
  EXPECT(tileops_load_failure_count() == 0);
  if (rms_norm_on_caller_memory() != 0) return 1;
  if (errors() != 0) return 1;
  puts("C API: all expectations met");
  return 0;
}
