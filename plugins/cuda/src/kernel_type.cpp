// Registers a KernelTypeDef (ops/common.hpp) as an ABI kernel type of the in-tree path.
#include "ops/common.hpp"
#include "ops/ops.hpp"

#include <cstring>

namespace tileops::cuda {
namespace {

const char* const kDevices[] = {"cuda"};

const KernelTypeDef& def_of(void* user) { return *static_cast<const KernelTypeDef*>(user); }

tileops_status refusal(void* user, const tileops_call* call, tileops_error* err) {
  return sdk::guard(err, [&] { def_of(user).identity(Call(*call)); });
}

int32_t identity(void* user, const tileops_call* call, char* buf, size_t cap) {
  try {
    const std::string id = def_of(user).identity(Call(*call));
    if (id.size() + 1 > cap) return -1;
    std::memcpy(buf, id.c_str(), id.size() + 1);
    return int32_t(id.size());
  } catch (...) {
    return -1;  // the refusal, which ran first, accepted this call: not reached
  }
}

tileops_status build(void* user, const tileops_call* call, tileops_kernel* out, tileops_error* err) {
  return sdk::guard(err, [&] { sdk::export_kernel(def_of(user).build(Call(*call)), out); });
}

}  // namespace

void register_kernel_type(sdk::Registrar& reg, const KernelTypeDef& def) {
  tileops_kernel_type type{};
  type.struct_size = sizeof type;
  type.op = def.op;
  type.key = def.key;
  type.interface = def.op;  // the host's generic forward calls the interface named like the op
  type.devices = kDevices;
  type.n_devices = 1;
  type.user = const_cast<KernelTypeDef*>(&def);
  type.refusal = refusal;
  type.identity = identity;
  type.build = build;
  reg.kernel_type(type);
}

void register_all_ops(sdk::Registrar& reg) {
  for (const KernelTypeDef* def : all_kernel_types()) register_kernel_type(reg, *def);
}

}  // namespace tileops::cuda
