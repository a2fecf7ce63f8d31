#pragma once
// Name resolution and static typing, run once when a spec loads: every Name node
// becomes a Ref to a slot (param, index, let, input, output), every node gets a static
// type and a params-only flag, and the expression gets its dependency masks. Problems
// are returned, not thrown, so that the loader can report all of them.
#include "expr/expr.hpp"

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tileops::manifest::detail {

struct Binding {
  Binding(RefKind kind, uint32_t slot, StaticType type, bool nullable = false)
      : kind(kind), slot(slot), type(type), nullable(nullable) {}

  RefKind kind;
  uint32_t slot;
  StaticType type;
  bool nullable = false;     // a `X | None` param, or an optional input
  bool params_only = false;  // a let that reads only params
  Deps deps;                 // for a let: what it reads, transitively
};

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};

class Scope {
 public:
  // Returns false when the name is taken already.
  bool add(const std::string& name, Binding binding) { return names_.emplace(name, binding).second; }
  const Binding* find(std::string_view name) const {
    auto it = names_.find(name);
    return it == names_.end() ? nullptr : &it->second;
  }

 private:
  std::unordered_map<std::string, Binding, StringHash, std::equal_to<>> names_;
};

struct ResolveOptions {
  bool roofline = false;  // bytes() and output names are allowed
};

struct ExprProblem {
  uint32_t pos;
  std::string message;
};

std::vector<ExprProblem> resolve(Expr& expr, const Scope& scope, ResolveOptions options = {});

}  // namespace tileops::manifest::detail
