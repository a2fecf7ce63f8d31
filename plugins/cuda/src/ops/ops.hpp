#pragma once
// The op families' kernel types, and every program they can compile (for the test that
// compiles each variant with NVRTC).
#include "../jit.hpp"

#include <tileops/sdk/plugin.hpp>

#include <vector>

namespace tileops::cuda {

void register_norm_ops(sdk::Registrar& reg);
void register_softmax_ops(sdk::Registrar& reg);
void register_reduce_ops(sdk::Registrar& reg);
void register_cumsum_ops(sdk::Registrar& reg);
void register_elementwise_ops(sdk::Registrar& reg);
void register_rope_ops(sdk::Registrar& reg);

inline void register_all_ops(sdk::Registrar& reg) {
  register_norm_ops(reg);
  register_softmax_ops(reg);
  register_reduce_ops(reg);
  register_cumsum_ops(reg);
  register_elementwise_ops(reg);
  register_rope_ops(reg);
}

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
