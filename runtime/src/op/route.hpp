#pragma once
// Target selection: which implementation serves an op instance.
//
// Order: the constructor's target, the process default, then detection (every
// registered detector asked about the call device: exactly one claim wins, none
// means the in-tree kernels, several are ambiguous).
#include "registry/records.hpp"

#include <tileops/backend.hpp>
#include <tileops/device.hpp>

#include <string>

namespace tileops::detail {

struct Route {
  enum Kind { kUnsettled, kTarget, kInTree, kComposite };
  Kind kind = kUnsettled;
  std::string target;                      // the settled target name, or BUILTIN
  const BuilderRecord* builder = nullptr;  // kTarget: the (op, target) builder
};

// The target that serves `op` for a call on `device`. Throws UnknownTargetError,
// AmbiguousTargetError, or OpNotAvailableError (a target without a builder for a
// non-composite op: there is no fall back to the in-tree kernels).
Route settle_route(const std::string& op, bool composite, const Target& requested,
                   const Device& device);

}  // namespace tileops::detail
