// The norm kernel types' identities (ops/norm.cpp) name the affine inputs a call has: the
// kernels are compiled for them (NormAffine), so two calls that differ only in an
// absent weight or bias must never share a kernel. No GPU needed.
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

const tileops_kernel_type& norm_type(const char* op) {
  if (g_types.empty()) {
    tileops_host_api host{};
    host.struct_size = sizeof host;
    host.register_kernel_type = record_type;
    tileops_plugin_info info{};
    tileops::sdk::Registrar reg(&host, nullptr, &info, nullptr);
    tileops::cuda::register_norm_ops(reg);
  }
  for (const auto& t : g_types)
    if (std::strcmp(t.op, op) == 0) return t;
  FAIL("no kernel type for " << op);
  return g_types.front();
}

constexpr tileops_dtype kF16{TILEOPS_DTYPE_FLOAT, 16, 1};

// A call of `op` on x [4, 4096] f16 with the affine inputs `present` (after x and, for the
// fused add, the residual), normalized over the last dim.
std::string identity(const char* op, std::vector<bool> present) {
  const int64_t x_shape[2] = {4, 4096}, w_shape[1] = {4096}, normalized[1] = {4096};
  tileops_tensor_spec x{sizeof x, {}, kF16, 2, x_shape}, w{sizeof w, {}, kF16, 1, w_shape};
  std::vector<const tileops_tensor_spec*> tensors{&x};
  if (std::strcmp(op, "FusedAddRMSNormFwdOp") == 0) tensors.push_back(&x);
  for (bool p : present) tensors.push_back(p ? &w : nullptr);
  tileops_param params[2]{};
  params[0].name = "normalized_shape";
  params[0].kind = TILEOPS_PARAM_INT_LIST;
  params[0].u.ints = {normalized, 1};
  params[1].name = "eps";
  params[1].kind = TILEOPS_PARAM_FLOAT;
  params[1].u.f = 1e-5;
  const tileops_device_facts facts{sizeof facts, 90, "test", 132, 232448};
  tileops_call call{};
  call.struct_size = sizeof call;
  call.op = op;
  call.interface = op;
  call.facts = &facts;
  call.tensors = tensors.data();
  call.n_tensors = tensors.size();
  call.params = params;
  call.n_params = 2;
  const tileops_kernel_type& type = norm_type(op);
  char buf[1024];
  const int32_t n = type.identity(type.user, &call, buf, sizeof buf);
  REQUIRE_MESSAGE(n > 0, op << " refused the call");
  return std::string(buf, size_t(n));
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
