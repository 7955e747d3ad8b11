#pragma once
// Shape regions (docs/library.md "Shape regions"): an op may hold several incumbents, each for a
// region of its integer params. A region is a conjunction of closed ranges, written in a kernel's
// metadata and in its dispatch.json entry as {"n": [1, 65535], "cols": [1024, 8192]}; a param it
// does not name is unbounded. The empty region is the whole space (no "region" field: the
// behaviour before regions). Regions of one op/variant/backend/device class must not overlap.
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include <nlohmann/json_fwd.hpp>

#include "util/error.hpp"

namespace kwb::library {

struct Region {
  std::map<std::string, std::pair<int64_t, int64_t>> bounds;  // param -> [low, high], low <= high

  bool whole() const { return bounds.empty(); }
  // Whether `params` lies inside: every bounded param is present and within its range (other
  // params, such as tunables, are not looked at).
  bool contains(const std::map<std::string, int64_t>& params) const;
  // Whether every params `inner` holds lie here too.
  bool covers(const Region& inner) const;
  // Whether some params lie in both (a param bounded by one only is unbounded in the other).
  bool overlaps(const Region& other) const;
  // "n in [1, 65535]", "n in [65536, max] and cols in [1, 8]"; "the whole space" when empty.
  std::string text() const;
  bool operator==(const Region&) const = default;
  auto operator<=>(const Region&) const = default;
};

// Parses a "region" object; errors name `where` ("dispatch.json: entries[2].region.n").
util::Result<Region> parse_region(const nlohmann::json& j, const std::string& where);
// {"n": [1, 65535]}; an empty object for the whole space.
nlohmann::json region_json(const Region& r);

}  // namespace kwb::library
