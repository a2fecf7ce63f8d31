// Pins the v1 layout of every ABI struct (LP64). A field that moves is an ABI break:
// append new fields instead, and add asserts for them here.
#include <tileops/abi.h>

#include <doctest/doctest.h>

#include <cstddef>

extern "C" int tileops_abi_c99_struct_has_launch(size_t struct_size);
extern "C" uint32_t tileops_abi_c99_version(void);

#define PIN(type, field, off) static_assert(offsetof(type, field) == (off), #type "." #field)

PIN(tileops_device, type, 0);
PIN(tileops_device, index, 8);
static_assert(sizeof(tileops_device) == 16);
PIN(tileops_dtype, code, 0);
PIN(tileops_dtype, bits, 1);
PIN(tileops_dtype, lanes, 2);
static_assert(sizeof(tileops_dtype) == 4);

PIN(tileops_param, name, 0);
PIN(tileops_param, kind, 8);
PIN(tileops_param, u, 16);
static_assert(sizeof(tileops_param) == 32);

PIN(tileops_tensor_spec, struct_size, 0);
PIN(tileops_tensor_spec, device, 8);
PIN(tileops_tensor_spec, dtype, 24);
PIN(tileops_tensor_spec, ndim, 28);
PIN(tileops_tensor_spec, shape, 32);
static_assert(sizeof(tileops_tensor_spec) == 40);

PIN(tileops_tensor, spec, 8);
PIN(tileops_tensor, data, 48);
PIN(tileops_tensor, strides, 56);
static_assert(sizeof(tileops_tensor) == 64);

PIN(tileops_kernel, self, 8);
PIN(tileops_kernel, launch, 16);
PIN(tileops_kernel, request_tune, 24);
PIN(tileops_kernel, config_json, 32);
PIN(tileops_kernel, release, 40);
static_assert(sizeof(tileops_kernel) == 48);

PIN(tileops_device_facts, arch, 8);
PIN(tileops_device_facts, calibration, 16);
PIN(tileops_device_facts, sm_count, 24);
PIN(tileops_device_facts, smem_budget, 32);
static_assert(sizeof(tileops_device_facts) == 40);

PIN(tileops_device_runtime, user, 8);
PIN(tileops_device_runtime, device_count, 16);
PIN(tileops_device_runtime, alloc, 24);
PIN(tileops_device_runtime, free, 32);
PIN(tileops_device_runtime, copy, 40);
PIN(tileops_device_runtime, synchronize, 48);
PIN(tileops_device_runtime, stream_create, 56);
PIN(tileops_device_runtime, stream_destroy, 64);
PIN(tileops_device_runtime, copy_strided, 72);
PIN(tileops_device_runtime, set_current, 80);
static_assert(sizeof(tileops_device_runtime) == 88);

PIN(tileops_call, op, 8);
PIN(tileops_call, interface, 16);
PIN(tileops_call, device, 24);
PIN(tileops_call, facts, 40);
PIN(tileops_call, tensors, 48);
PIN(tileops_call, n_tensors, 56);
PIN(tileops_call, params, 64);
PIN(tileops_call, n_params, 72);
static_assert(sizeof(tileops_call) == 80);

PIN(tileops_kernel_type, op, 8);
PIN(tileops_kernel_type, key, 16);
PIN(tileops_kernel_type, interface, 24);
PIN(tileops_kernel_type, devices, 32);
PIN(tileops_kernel_type, n_devices, 40);
PIN(tileops_kernel_type, supported_archs, 48);
PIN(tileops_kernel_type, n_archs, 56);
PIN(tileops_kernel_type, general, 64);
PIN(tileops_kernel_type, preferred_over, 72);
PIN(tileops_kernel_type, n_preferred_over, 80);
PIN(tileops_kernel_type, user, 88);
PIN(tileops_kernel_type, refusal, 96);
PIN(tileops_kernel_type, identity, 104);
PIN(tileops_kernel_type, build, 112);
static_assert(sizeof(tileops_kernel_type) == 120);

PIN(tileops_host_api, abi_major, 8);
PIN(tileops_host_api, abi_minor, 12);
PIN(tileops_host_api, register_detector, 16);
PIN(tileops_host_api, register_kernel_builder, 24);
PIN(tileops_host_api, register_device_facts, 32);
PIN(tileops_host_api, register_device_runtime, 40);
PIN(tileops_host_api, register_kernel_type, 48);
PIN(tileops_host_api, current_stream, 56);
PIN(tileops_host_api, error_set, 64);
PIN(tileops_host_api, log, 72);
static_assert(sizeof(tileops_host_api) == 80);

PIN(tileops_plugin_info, name, 8);
PIN(tileops_plugin_info, version, 16);
PIN(tileops_plugin_info, build_id, 24);
static_assert(sizeof(tileops_plugin_info) == 32);

TEST_CASE("ABI v1 version word and struct_size checks, from C99") {
  CHECK(tileops_abi_c99_version() == 0x00010000u);
  CHECK(tileops_abi_c99_struct_has_launch(sizeof(tileops_kernel)) == 1);
  // A kernel struct from a plugin that knew only struct_size and self has no launch.
  CHECK(tileops_abi_c99_struct_has_launch(16) == 0);
  CHECK(tileops_abi_c99_struct_has_launch(24) == 1);
}

TEST_CASE("TILEOPS_STRUCT_HAS reads the size a plugin declared") {
  tileops_device_runtime rt{};
  rt.struct_size = offsetof(tileops_device_runtime, copy_strided);
  CHECK_FALSE(TILEOPS_STRUCT_HAS(&rt, copy_strided));
  CHECK(TILEOPS_STRUCT_HAS(&rt, stream_destroy));
  rt.struct_size = sizeof rt;
  CHECK(TILEOPS_STRUCT_HAS(&rt, set_current));
}
