#pragma once
// Which op names exist: the manifest answers, so a builder registered under a
// misspelt op is refused at load time instead of silently never being called.
#include <string>
#include <string_view>
#include <vector>

namespace tileops::detail {

class OpCatalog {
 public:
  virtual ~OpCatalog() = default;
  virtual bool knows(std::string_view op) const = 0;
  virtual bool is_composite(std::string_view op) const = 0;
  // The closest known names, best first.
  virtual std::vector<std::string> nearest(std::string_view op, size_t n) const = 0;
};

// The manifest compiled into the runtime (or TILEOPS_MANIFEST_DIR).
const OpCatalog& op_catalog();

}  // namespace tileops::detail
