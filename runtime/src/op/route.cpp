#include "op/route.hpp"

#include "registry/registry.hpp"
#include "support/format.hpp"
#include "support/status.hpp"

#include <tileops/errors.hpp>

#include <algorithm>

namespace tileops::detail {
namespace {

// Asks every detector; a detector that throws is recorded and counts as no claim.
std::string detect_target(const Snapshot& snapshot, const Device& device) {
  std::vector<std::string> claims;
  const tileops_device d = device.to_c();
  for (const auto& detector : snapshot.detectors) {
    int32_t mine = 0;
    try {
      mine = detector.detect(detector.user, &d);
    } catch (...) {
      Registry::get().record_failure(
          {origin(detector.plugin), "detect",
           "the detector of target '" + detector.target + "' threw for " + device.str() + thrown_detail()});
    }
    if (mine) claims.push_back(detector.target);
  }
  if (claims.empty()) return std::string(BUILTIN);
  std::sort(claims.begin(), claims.end());
  if (claims.size() > 1)
    throw AmbiguousTargetError("several targets claim device " + device.str() + ": " +
                               quoted_list(claims) +
                               "; pass target= or set_default_target() to choose one");
  return claims.front();
}

}  // namespace

Route settle_route(const std::string& op, bool composite, const Target& requested,
                   const Device& device) {
  const auto& snapshot = Registry::get().snapshot();
  Target chosen = requested ? requested : default_target();
  std::string target = chosen ? *chosen : detect_target(snapshot, device);
  snapshot.require_target(target);
  if (target == BUILTIN) return {composite ? Route::kComposite : Route::kInTree, target, nullptr};
  if (const auto* builder = snapshot.builder(op, target))
    return {Route::kTarget, target, builder};
  if (composite) return {Route::kComposite, target, nullptr};
  std::vector<std::string> serving;
  for (const auto& [key, b] : snapshot.builders)
    if (b.op == op) serving.push_back(b.target);
  throw OpNotAvailableError("target '" + target + "' registers no kernel builder for " + op +
                            "; targets that do: " + quoted_list(serving) +
                            ". There is no fall back to the in-tree implementation: those "
                            "kernels do not run on this target's devices.");
}

}  // namespace tileops::detail
