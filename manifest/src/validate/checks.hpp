#pragma once
// The validator's checks, one function per concern (validate.cpp runs them).
#include <tileops/manifest/manifest.hpp>
#include <tileops/manifest/validate.hpp>

#include <string>
#include <vector>

namespace tileops::manifest::detail {

class Diagnostics {
 public:
  void add(const OpSpec* op, const char* check, const std::string& file, int line, std::string message) {
    list.push_back({op ? op->name() : "", check, file, line, std::move(message)});
  }
  void add(const OpSpec& op, const char* check, std::string message) {
    add(&op, check, op.file(), op.line(), std::move(message));
  }
  std::vector<Diagnostic> list;
};

void check_type_families(const Manifest& manifest, Diagnostics& out);
void check_names(const OpSpec& op, Diagnostics& out);
void check_inference(const OpSpec& op, Diagnostics& out);
// Rows instantiate; ids are unique; declared bytes agree with derived ones; every
// optional input is passed in some row and omitted in another; compositions hold.
void check_workloads(const Manifest& manifest, const OpSpec& op, Diagnostics& out);

}  // namespace tileops::manifest::detail
