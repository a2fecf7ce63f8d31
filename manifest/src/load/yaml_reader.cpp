#include "load/yaml_reader.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace tileops::manifest::detail {
namespace {

bool parse_int(const std::string& s, int64_t& out) {
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  if (begin != end && *begin == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, out);
  return ec == std::errc() && ptr == end && begin != end;
}

bool parse_float(const std::string& s, double& out) {
  if (s.empty()) return false;
  bool digit = false;
  for (char c : s) {
    if (std::isdigit(static_cast<unsigned char>(c))) digit = true;
    else if (c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-') return false;
  }
  if (!digit) return false;
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(out);
}

}  // namespace

std::optional<Scalar> read_scalar(const YAML::Node& node) {
  Scalar s;
  if (!node.IsDefined() || node.IsNull()) return s;
  if (!node.IsScalar()) return std::nullopt;
  s.text = node.Scalar();
  if (node.Tag() == "!") {
    s.kind = Scalar::Kind::String;
    return s;
  }
  const std::string& t = s.text;
  if (t == "true" || t == "True" || t == "TRUE" || t == "false" || t == "False" || t == "FALSE") {
    s.kind = Scalar::Kind::Bool;
    s.b = t[0] == 't' || t[0] == 'T';
  } else if (t == "null" || t == "Null" || t == "NULL" || t == "~") {
    s.kind = Scalar::Kind::Null;
  } else if (parse_int(t, s.i)) {
    s.kind = Scalar::Kind::Int;
  } else if (parse_float(t, s.f)) {
    s.kind = Scalar::Kind::Float;
  } else {
    s.kind = Scalar::Kind::String;
  }
  return s;
}

MapReader::MapReader(const YAML::Node& node, Where where, Problems& problems)
    : where_(std::move(where)), problems_(problems) {
  if (!node.IsDefined() || !node.IsMap()) {
    problems_.add(*where_.file, where_.line, where_.key, "must be a mapping");
    return;
  }
  is_map_ = true;
  for (auto it = node.begin(); it != node.end(); ++it) {
    int line = detail::line_of(it->first);
    std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";
    if (const Entry* first = find(key)) {
      problems_.add(*where_.file, line, where_.child(key, line).key,
                    "duplicate key (first at line " + std::to_string(first->line) + ")");
      continue;
    }
    entries_.push_back({key, it->second, line});
  }
  taken_.assign(entries_.size(), false);
}

const Entry* MapReader::find(std::string_view key) const {
  for (const Entry& e : entries_)
    if (e.key == key) return &e;
  return nullptr;
}

YAML::Node MapReader::take(std::string_view key) {
  for (size_t k = 0; k < entries_.size(); ++k) {
    if (entries_[k].key == key) {
      taken_[k] = true;
      return entries_[k].value;
    }
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

YAML::Node MapReader::require(std::string_view key) {
  YAML::Node node = take(key);
  if (!node.IsDefined() && is_map_)
    problems_.add(*where_.file, where_.line, where_.key, "missing required field '" + std::string(key) + "'");
  return node;
}

int MapReader::line_of_key(std::string_view key) const {
  const Entry* e = find(key);
  return e ? e->line : where_.line;
}

Where MapReader::child(std::string_view key) const {
  return where_.child(std::string(key), line_of_key(key));
}

std::optional<std::string> MapReader::string(std::string_view key, bool required) {
  YAML::Node node = required ? require(key) : take(key);
  if (!node.IsDefined()) return std::nullopt;
  return read_string(node, child(key), problems_);
}

const std::vector<Entry>& MapReader::entries() {
  taken_.assign(entries_.size(), true);
  return entries_;
}

void MapReader::finish(std::string_view allowed) {
  for (size_t k = 0; k < entries_.size(); ++k) {
    if (taken_[k]) continue;
    problems_.add(*where_.file, entries_[k].line, where_.child(entries_[k].key, entries_[k].line).key,
                  "unknown field '" + entries_[k].key + "' (allowed: " + std::string(allowed) + ")");
  }
}

std::optional<std::string> read_string(const YAML::Node& node, const Where& where, Problems& problems) {
  auto s = read_scalar(node);
  if (s && s->kind != Scalar::Kind::Null && (s->kind == Scalar::Kind::String || !s->text.empty()))
    return s->text;
  problems.add(*where.file, where.line, where.key, "must be a string");
  return std::nullopt;
}

std::optional<bool> read_bool(const YAML::Node& node, const Where& where, Problems& problems) {
  auto s = read_scalar(node);
  if (s && s->kind == Scalar::Kind::Bool) return s->b;
  problems.add(*where.file, where.line, where.key, "must be true or false");
  return std::nullopt;
}

std::optional<Scalar> read_flag(const YAML::Node& node, const Where& where, Problems& problems) {
  auto s = read_scalar(node);
  if (s && (s->kind == Scalar::Kind::Bool || s->kind == Scalar::Kind::String)) return s;
  problems.add(*where.file, where.line, where.key, "must be true, false or an expression over params");
  return std::nullopt;
}

}  // namespace tileops::manifest::detail
