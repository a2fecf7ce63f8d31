// tileops ops [--markdown|--json]: the ops of the manifest. --markdown writes the
// support matrix kept in docs/support-matrix.md; --json the whole manifest.
#include "commands.hpp"
#include "output.hpp"

#include <tileops/manifest.hpp>
#include <tileops/manifest/json.hpp>

#include <iostream>

namespace tileops::cli {
namespace {

// Every dtype a DType index of the op allows, per index: "T: float32, float16".
std::string dtypes_of(const manifest::OpSpec& op) {
  std::vector<std::string> parts;
  for (const auto& index : op.indices()) {
    if (index.kind != manifest::IndexKind::DType) continue;
    std::vector<std::string> names;
    for (DType d : index.dtypes) names.emplace_back(d.name());
    parts.push_back(index.name + ": " + (names.empty() ? std::string("any") : join(names)));
  }
  return join(parts, "; ");
}

void print_markdown(const manifest::Manifest& m) {
  std::cout << "# Support matrix\n\n"
               "Generated from the specs by `tileops ops --markdown`; a test keeps this page in step\n"
               "with them. Which backends serve each op in an installation: `tileops plugins`.\n\n"
               "| op | family | status | dtypes | follows |\n"
               "| --- | --- | --- | --- | --- |\n";
  for (const auto& family : m.families())
    for (const auto& op : m.ops())
      if (op.family() == family)
        std::cout << "| " << op.name() << " | " << op.family() << " | "
                  << (op.implemented() ? "implemented" : "spec-only") << " | " << dtypes_of(op) << " | `"
                  << op.ref_api() << "` |\n";
}

}  // namespace

void add_ops_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("ops", "List the ops of the manifest (the support matrix)");
  static bool markdown = false;
  static bool json = false;
  cmd->add_flag("--markdown", markdown, "the support matrix as Markdown");
  cmd->add_flag("--json", json, "the whole manifest as JSON");
  cmd->callback([] {
    const auto& m = manifest::Manifest::builtin();
    if (json) {
      std::cout << manifest::manifest_json(m) << "\n";
    } else if (markdown) {
      print_markdown(m);
    } else {
      for (const auto& op : m.ops()) std::cout << op.name() << "  (" << op.family() << ")\n";
    }
  });
}

}  // namespace tileops::cli
