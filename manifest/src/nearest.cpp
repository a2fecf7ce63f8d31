#include "nearest.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace tileops::manifest::detail {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) == std::tolower(static_cast<unsigned char>(b[j - 1]));
      size_t next = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = row[j];
      row[j] = next;
    }
  }
  return row[b.size()];
}

std::vector<std::string> nearest_names(std::string_view name, std::span<const std::string> candidates, size_t n) {
  std::vector<std::pair<size_t, size_t>> scored;  // distance, position
  for (size_t k = 0; k < candidates.size(); ++k) scored.emplace_back(edit_distance(name, candidates[k]), k);
  std::stable_sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (size_t k = 0; k < scored.size() && k < n; ++k) out.push_back(candidates[scored[k].second]);
  return out;
}

std::optional<std::string> did_you_mean(std::string_view name, std::span<const std::string> candidates) {
  auto best = nearest_names(name, candidates, 1);
  if (best.empty()) return std::nullopt;
  const std::string& c = best[0];
  bool prefix = !c.empty() && (name.rfind(c, 0) == 0 || std::string_view(c).rfind(name, 0) == 0);
  double longer = double(std::max(name.size(), c.size()));
  if (prefix || double(edit_distance(name, c)) <= 0.6 * longer) return c;
  return std::nullopt;
}

}  // namespace tileops::manifest::detail
