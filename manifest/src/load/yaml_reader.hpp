#pragma once
// Reading spec YAML with positions: mappings walked entry by entry (yaml-cpp keeps
// duplicate keys but operator[] silently returns one of them), unknown fields
// reported, scalars classified the way YAML 1.2's core schema does.
#include "load/problems.hpp"

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tileops::manifest::detail {

inline int line_of(const YAML::Node& node) { return node.Mark().line + 1; }

// A quoted scalar is always a String; a plain one is classified by its text.
struct Scalar {
  enum class Kind { Null, Bool, Int, Float, String } kind = Kind::Null;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string text;  // as written
};

// nullopt for a sequence or a mapping.
std::optional<Scalar> read_scalar(const YAML::Node& node);

struct Entry {
  std::string key;
  YAML::Node value;
  int line;
};

class MapReader {
 public:
  // Reports a non-mapping node (then behaves as an empty mapping) and duplicate keys.
  MapReader(const YAML::Node& node, Where where, Problems& problems);

  bool is_map() const { return is_map_; }
  const Where& where() const { return where_; }
  // The value of `key`, or an undefined node. Marks the key known.
  YAML::Node take(std::string_view key);
  // Like take(), reporting a missing key.
  YAML::Node require(std::string_view key);
  int line_of_key(std::string_view key) const;
  Where child(std::string_view key) const;
  // All entries, in order (the first of duplicates), marking every key known.
  const std::vector<Entry>& entries();
  // The string value of `key`; nullopt (reported when `required` or not a string) otherwise.
  std::optional<std::string> string(std::string_view key, bool required);
  // Reports keys never taken as unknown fields, naming the fields allowed.
  void finish(std::string_view allowed);

 private:
  const Entry* find(std::string_view key) const;

  Where where_;
  Problems& problems_;
  bool is_map_ = false;
  std::vector<Entry> entries_;
  std::vector<bool> taken_;
};

// Helpers that report a problem and return nullopt when the node is not of the kind.
std::optional<std::string> read_string(const YAML::Node& node, const Where& where, Problems& problems);
std::optional<bool> read_bool(const YAML::Node& node, const Where& where, Problems& problems);
// A string, or a bool given as YAML `true`/`false`: flags that take `true | "<expr>"`.
std::optional<Scalar> read_flag(const YAML::Node& node, const Where& where, Problems& problems);

}  // namespace tileops::manifest::detail
