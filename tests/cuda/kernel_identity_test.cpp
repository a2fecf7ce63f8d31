// Kernel types' identities (ops/*.cpp): calls with the same identity share a kernel, so
// an identity must name whatever the kernel is compiled for. The norms' name the affine
// inputs a call has (NormAffine: two calls that differ only in an absent weight or bias
// must never share a kernel); cumsum's tell rows of one tile from longer rows, whose
// programs differ. No GPU needed.
#include "ops/ops.hpp"

#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

std::vector<tileops_kernel_type> g_types;

tileops_status record_type(tileops_registrar*, const tileops_kernel_type* type, tileops_error*) {
  g_types.push_back(*type);
  return TILEOPS_OK;
}

const tileops_kernel_type& kernel_type(const char* op) {
  if (g_types.empty()) {
    tileops_host_api host{};
    host.struct_size = sizeof host;
    host.register_kernel_type = record_type;
    tileops_plugin_info info{};
    tileops::sdk::Registrar reg(&host, nullptr, &info, nullptr);
    tileops::cuda::register_all_ops(reg);
  }
  for (const auto& t : g_types)
    if (std::strcmp(t.op, op) == 0) return t;
  FAIL("no kernel type for " << op);
  return g_types.front();
}

constexpr tileops_dtype kF16{TILEOPS_DTYPE_FLOAT, 16, 1};

// The identity of a call of `op` on `tensors` with `params`, on an H200's facts.
std::string identity(const char* op, const std::vector<const tileops_tensor_spec*>& tensors,
                     const std::vector<tileops_param>& params) {
  const tileops_device_facts facts{sizeof facts, 90, "test", 132, 232448};
  tileops_call call{};
  call.struct_size = sizeof call;
  call.op = op;
  call.interface = op;
  call.facts = &facts;
  call.tensors = tensors.data();
  call.n_tensors = tensors.size();
  call.params = params.data();
  call.n_params = params.size();
  const tileops_kernel_type& type = kernel_type(op);
  char buf[1024];
  const int32_t n = type.identity(type.user, &call, buf, sizeof buf);
  REQUIRE_MESSAGE(n > 0, op << " refused the call");
  return std::string(buf, size_t(n));
}

// A call of norm `op` on x [4, 4096] f16 with the affine inputs `present` (after x and,
// for the fused add, the residual), normalized over the last dim.
std::string identity(const char* op, std::vector<bool> present) {
  const int64_t x_shape[2] = {4, 4096}, w_shape[1] = {4096}, normalized[1] = {4096};
  tileops_tensor_spec x{sizeof x, {}, kF16, 2, x_shape}, w{sizeof w, {}, kF16, 1, w_shape};
  std::vector<const tileops_tensor_spec*> tensors{&x};
  if (std::strcmp(op, "FusedAddRMSNormFwdOp") == 0) tensors.push_back(&x);
  for (bool p : present) tensors.push_back(p ? &w : nullptr);
  std::vector<tileops_param> params(2);
  params[0].name = "normalized_shape";
  params[0].kind = TILEOPS_PARAM_INT_LIST;
  params[0].u.ints = {normalized, 1};
  params[1].name = "eps";
  params[1].kind = TILEOPS_PARAM_FLOAT;
  params[1].u.f = 1e-5;
  return identity(op, tensors, params);
}

// A cumsum along the last dim of x [rows, len] f16.
std::string cumsum_identity(int64_t rows, int64_t len) {
  const int64_t x_shape[2] = {rows, len};
  const tileops_tensor_spec x{sizeof x, {}, kF16, 2, x_shape};
  std::vector<tileops_param> params(1);
  params[0].name = "dim";
  params[0].kind = TILEOPS_PARAM_INT;
  params[0].u.i = -1;
  return identity("CumsumFwdOp", {&x}, params);
}

}  // namespace

TEST_CASE("LayerNorm's identity differs for each weight/bias pair, as its kernels do") {
  const std::string both = identity("LayerNormFwdOp", {true, true}), weight = identity("LayerNormFwdOp", {true, false}),
                    bias = identity("LayerNormFwdOp", {false, true}), none = identity("LayerNormFwdOp", {false, false});
  CHECK(both.find("|affine 3|") != std::string::npos);
  CHECK(weight.find("|affine 1|") != std::string::npos);
  CHECK(bias.find("|affine 2|") != std::string::npos);
  CHECK(none.find("|affine 0|") != std::string::npos);
  CHECK(identity("LayerNormFwdOp", {}) == none);  // omitted trailing inputs are absent
}

TEST_CASE("RMSNorm and the fused add name their weight, wherever it sits in the inputs") {
  CHECK(identity("RMSNormFwdOp", {true}).find("|affine 1|") != std::string::npos);
  CHECK(identity("RMSNormFwdOp", {false}).find("|affine 0|") != std::string::npos);
  CHECK(identity("FusedAddRMSNormFwdOp", {true}).find("|affine 1|") != std::string::npos);
  CHECK(identity("FusedAddRMSNormFwdOp", {}).find("|affine 0|") != std::string::npos);
}

TEST_CASE("cumsum rows of one tile and longer rows are kernel types of their own") {
  // A 16-bit tile is 256 threads x 32 elements: 8192.
  const std::string one_tile = cumsum_identity(4, 8192), long_rows = cumsum_identity(4, 8200);
  CHECK(one_tile != long_rows);
  CHECK(long_rows.find(" long") != std::string::npos);
  CHECK(one_tile.find(" long") == std::string::npos);
  CHECK(cumsum_identity(64, 128256) == cumsum_identity(8, 3000000));  // both long: one kernel type
  CHECK(cumsum_identity(64, 8192) == one_tile);
}
