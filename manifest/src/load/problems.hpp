#pragma once
// Collects load problems so that one SpecError can report all of them.
#include <tileops/manifest/spec_error.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace tileops::manifest::detail {

class Problems {
 public:
  void add(const std::string& file, int line, std::string key, std::string message) {
    list_.push_back({file, line, std::move(key), std::move(message)});
  }
  // In file and line order (the loader visits some fields out of order).
  void throw_if_any() {
    if (list_.empty()) return;
    std::stable_sort(list_.begin(), list_.end(), [](const SpecProblem& a, const SpecProblem& b) {
      return a.file != b.file ? a.file < b.file : a.line < b.line;
    });
    throw SpecError(list_);
  }

 private:
  std::vector<SpecProblem> list_;
};

// Where a value sits in a spec file, for messages: file, line, dotted key.
struct Where {
  const std::string* file;
  int line;
  std::string key;

  Where at(int other_line) const { return {file, other_line, key}; }
  Where child(const std::string& name, int child_line) const {
    return {file, child_line, key.empty() ? name : key + "." + name};
  }
};

}  // namespace tileops::manifest::detail
