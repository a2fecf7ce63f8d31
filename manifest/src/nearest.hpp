#pragma once
// Edit distance for "did you mean" hints.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tileops::manifest::detail {

size_t edit_distance(std::string_view a, std::string_view b);
// Up to n candidates, closest first (ties in the candidates' order).
std::vector<std::string> nearest_names(std::string_view name, std::span<const std::string> candidates, size_t n);
// The closest candidate when it is close enough to be a plausible typo.
std::optional<std::string> did_you_mean(std::string_view name, std::span<const std::string> candidates);

}  // namespace tileops::manifest::detail
