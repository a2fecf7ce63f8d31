#pragma once
// The set of op specs: loaded from a directory, from the specs compiled into the
// library, or (builtin()) once per process.
#include <tileops/manifest/op_spec.hpp>
#include <tileops/manifest/spec_error.hpp>

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tileops::manifest {

struct TypeFamily;

class Manifest {
 public:
  // Loads `<family>.yaml`, `<family>_<shard>.yaml` and `types.yaml` from `dir`. Throws
  // SpecError listing every problem.
  static Manifest load_dir(const std::string& dir);
  // The specs compiled into the library.
  static Manifest load_embedded();
  // Loaded once per process (thread-safe): $TILEOPS_MANIFEST_DIR when set, else the
  // embedded specs.
  static const Manifest& builtin();

  Manifest(Manifest&&) noexcept;
  Manifest& operator=(Manifest&&) noexcept;
  ~Manifest();

  // nullptr when unknown. A hash lookup.
  const OpSpec* find(std::string_view name) const;
  // Up to n op names closest to `name` by edit distance, closest first.
  std::vector<std::string> nearest(std::string_view name, size_t n = 3) const;
  // In file order (files sorted by name), entries in their file's order.
  std::span<const OpSpec> ops() const;
  // Families in sorted order.
  std::vector<std::string> families() const;
  // Type families from types.yaml.
  std::span<const TypeFamily> type_families() const;

  struct Impl;

 private:
  explicit Manifest(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A type family of types.yaml, as loaded.
struct TypeFamily {
  struct Param {
    std::string name;
    std::string kind;                      // "Bool", "Dim", "Shape", or an enum text
    std::vector<std::string> enum_values;  // for an enum kind
  };
  struct Case {
    ParamValue when;  // the match param's value: a bool, or a string of an enum
    std::string is;   // the shape text: "[C, R]"
    int line = 0;
  };
  std::string name;
  std::vector<Param> params;
  size_t match = 0;  // index into params
  std::vector<Case> cases;
  std::string file;
  int line = 0;
};

}  // namespace tileops::manifest
