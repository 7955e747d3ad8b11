#pragma once
// "Did you mean ...?": the edit distance between two names and the closest of a list.
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace kwb::util {

// Levenshtein distance (insertions, deletions, substitutions, and a swap of two neighbours counts 1).
size_t edit_distance(std::string_view a, std::string_view b);

// The name of `known` closest to `name`, when it is close enough to be a likely misspelling: at
// most max(2, size/3) edits, or `name` is a prefix of it. Ties: the first in `known`.
std::optional<std::string> closest_name(std::string_view name, std::span<const std::string> known);

}  // namespace kwb::util
