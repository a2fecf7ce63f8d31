#include "device/device_facts.hpp"

#include "registry/registrar.hpp"
#include "registry/registry.hpp"
#include "support/status.hpp"

#include <tileops/errors.hpp>

namespace tileops::detail {

DeviceFacts read_device_facts(const Device& device) {
  const auto* reader = Registry::get().snapshot().facts_reader(device);
  if (!reader) return {};
  const std::string who = "the device facts reader of '" + std::string(device.type()) +
                          "' (registered by " + origin(reader->plugin) + ")";
  tileops_device_facts out{};
  out.struct_size = sizeof out;
  out.arch = -1;
  tileops_error err;
  tileops_status status;
  auto d = device.to_c();
  try {
    status = reader->read(reader->user, &d, &out, &err);
  } catch (...) {
    throw BackendError(who + " threw for " + device.str() + thrown_detail());
  }
  if (status != TILEOPS_OK)
    throw BackendError(who + " failed for " + device.str() + ": " + describe(err, status));
  if (out.sm_count < 0 || out.smem_budget < 0)
    throw BackendError(who + " returned invalid facts for " + device.str() + ": sm_count " +
                       std::to_string(out.sm_count) + ", smem_budget " +
                       std::to_string(out.smem_budget) + " (neither may be negative)");
  DeviceFacts facts;
  facts.arch = out.arch;
  if (out.calibration) facts.calibration = out.calibration;
  facts.sm_count = out.sm_count;
  facts.smem_budget = out.smem_budget;
  return facts;
}

}  // namespace tileops::detail
