#pragma once
// One plugin's registration transaction, and the host API that fills it.
#include "registry/registry.hpp"

#include <tileops/abi.h>

#include <memory>
#include <optional>
#include <string>

// The ABI's opaque types, defined by the host.
struct tileops_error {
  tileops_status status = TILEOPS_OK;
  std::string message;
};

struct tileops_registrar {
  const tileops::detail::Snapshot* base;  // what is already committed
  tileops::detail::Staged staged;
  std::shared_ptr<tileops::detail::PluginRecord> plugin;
  bool builtin = false;                   // loaded from the runtime's own directory
  std::optional<std::string> refusal;     // the first registration refused
};

namespace tileops::detail {

// The table handed to every plugin entry.
const tileops_host_api& host_api();

// Turns a filled error sink into a message ("status N" when the plugin wrote none).
std::string describe(const tileops_error& err, tileops_status status);

}  // namespace tileops::detail
