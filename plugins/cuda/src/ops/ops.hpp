#pragma once
// The op families' kernel types, and every program they can compile (for the test that
// compiles each variant with NVRTC, and the one that checks each call's programs are
// among them).
#include "../jit.hpp"

#include <tileops/sdk/plugin.hpp>

#include <vector>

namespace tileops::cuda {

struct KernelTypeDef;  // common.hpp

// Each appends its family's kernel types.
void list_norm_types(std::vector<const KernelTypeDef*>& out);
void list_softmax_types(std::vector<const KernelTypeDef*>& out);
void list_reduce_types(std::vector<const KernelTypeDef*>& out);
void list_cumsum_types(std::vector<const KernelTypeDef*>& out);
void list_elementwise_types(std::vector<const KernelTypeDef*>& out);
void list_rope_types(std::vector<const KernelTypeDef*>& out);

inline std::vector<const KernelTypeDef*> all_kernel_types() {
  std::vector<const KernelTypeDef*> out;
  list_norm_types(out);
  list_softmax_types(out);
  list_reduce_types(out);
  list_cumsum_types(out);
  list_elementwise_types(out);
  list_rope_types(out);
  return out;
}

// Registers every kernel type with the host (kernel_type.cpp).
void register_all_ops(sdk::Registrar& reg);

// Each appends every program its kernel types can build for sm_90 (and the strided copy).
void list_norm_programs(std::vector<ProgramSpec>& out);
void list_softmax_programs(std::vector<ProgramSpec>& out);
void list_reduce_programs(std::vector<ProgramSpec>& out);
void list_cumsum_programs(std::vector<ProgramSpec>& out);
void list_elementwise_programs(std::vector<ProgramSpec>& out);
void list_rope_programs(std::vector<ProgramSpec>& out);
void list_copy_programs(std::vector<ProgramSpec>& out);

inline std::vector<ProgramSpec> all_programs() {
  std::vector<ProgramSpec> out;
  list_norm_programs(out);
  list_softmax_programs(out);
  list_reduce_programs(out);
  list_cumsum_programs(out);
  list_elementwise_programs(out);
  list_rope_programs(out);
  list_copy_programs(out);
  return out;
}

}  // namespace tileops::cuda
