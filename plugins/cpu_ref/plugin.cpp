// The cpu_ref plugin's entry: target "cpu_ref" claims every cpu device and registers
// one builder per op of ops/table.cpp.
#include "ops/builders.hpp"

#include <tileops/sdk/plugin.hpp>

#include <cstring>

#ifndef TILEOPS_CPU_REF_VERSION
#define TILEOPS_CPU_REF_VERSION "0.0.0"
#endif

namespace {

constexpr const char* kTarget = "cpu_ref";

// A pure predicate: no allocation, no lock.
int32_t detect_cpu(void* /*user*/, const tileops_device* device) {
  return device != nullptr && device->type != nullptr && std::strcmp(device->type, "cpu") == 0;
}

}  // namespace

TILEOPS_PLUGIN(reg) {
  reg.info("cpu_ref", TILEOPS_CPU_REF_VERSION, "cpu_ref-" TILEOPS_CPU_REF_VERSION);
  reg.detector(kTarget, detect_cpu);
  for (const auto& entry : tileops::cpu_ref::op_builders())
    reg.builder(entry.op, kTarget, entry.build);
}
