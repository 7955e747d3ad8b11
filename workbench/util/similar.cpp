#include "util/similar.hpp"

#include <algorithm>
#include <vector>

namespace kwb::util {

size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment distance, three rows.
  std::vector<size_t> prev2(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::optional<std::string> closest_name(std::string_view name, std::span<const std::string> known) {
  std::optional<std::string> best;
  size_t best_d = 0;
  const size_t limit = std::max<size_t>(2, name.size() / 3);
  for (const auto& k : known) {
    size_t d = edit_distance(name, k);
    bool prefix = name.size() >= 2 && k.starts_with(name);
    if (d > limit && !prefix) continue;
    if (prefix) d = std::min(d, limit);
    if (!best || d < best_d) best = k, best_d = d;
  }
  return best;
}

}  // namespace kwb::util
