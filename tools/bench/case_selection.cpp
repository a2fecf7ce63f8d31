#include "case_selection.hpp"

#include "workload_inputs.hpp"

#include <tileops/errors.hpp>
#include <tileops/manifest/manifest.hpp>

#include <algorithm>
#include <set>

namespace tileops::bench {
namespace {

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

std::vector<SelectedCase> select_cases(const Selection& selection) {
  const auto& manifest = manifest::Manifest::builtin();
  for (const auto& op : selection.ops) tooling::cases_of(op);  // ValueError with suggestions
  const auto families = manifest.families();
  for (const auto& f : selection.families)
    if (!contains(families, f)) throw ValueError("unknown family '" + f + "'; the families are " + joined(families));

  const bool everything = selection.ops.empty() && selection.families.empty();
  std::vector<SelectedCase> out;
  std::set<std::string> labels_seen;
  for (const auto& spec : manifest.ops()) {
    if (!everything && !contains(selection.ops, spec.name()) && !contains(selection.families, spec.family())) continue;
    for (auto& c : spec.workload_cases()) {
      bool listed = selection.labels.empty();
      for (const auto& l : selection.labels)
        if (l == c.label || l == c.id) {
          listed = true;
          labels_seen.insert(l);
        }
      if (listed) out.push_back({&spec, std::move(c)});
    }
  }
  for (const auto& l : selection.labels)
    if (!labels_seen.count(l)) throw ValueError("no selected op has a workload row or case '" + l + "'");
  return out;
}

}  // namespace tileops::bench
