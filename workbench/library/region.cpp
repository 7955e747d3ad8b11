#include "library/region.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace kwb::library {

bool Region::contains(const std::map<std::string, int64_t>& params) const {
  for (const auto& [name, range] : bounds) {
    auto it = params.find(name);
    if (it == params.end() || it->second < range.first || it->second > range.second) return false;
  }
  return true;
}

bool Region::covers(const Region& inner) const {
  for (const auto& [name, range] : bounds) {
    auto it = inner.bounds.find(name);
    if (it == inner.bounds.end() || it->second.first < range.first || it->second.second > range.second) return false;
  }
  return true;
}

bool Region::overlaps(const Region& other) const {
  for (const auto& [name, range] : bounds) {
    auto it = other.bounds.find(name);
    if (it == other.bounds.end()) continue;
    if (std::max(range.first, it->second.first) > std::min(range.second, it->second.second)) return false;
  }
  return true;
}

std::string Region::text() const {
  if (bounds.empty()) return "the whole space";
  auto end = [](int64_t v, int64_t limit, const char* word) {
    return v == limit ? std::string(word) : std::to_string(v);
  };
  std::string out;
  for (const auto& [name, range] : bounds)
    out += fmt::format("{}{} in [{}, {}]", out.empty() ? "" : " and ", name,
                       end(range.first, std::numeric_limits<int64_t>::min(), "min"),
                       end(range.second, std::numeric_limits<int64_t>::max(), "max"));
  return out;
}

util::Result<Region> parse_region(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object())
    return util::fail(where, "expected an object of param ranges, e.g. {\"n\": [1, 65535]}, got " + j.dump());
  Region r;
  for (const auto& [name, range] : j.items()) {
    const std::string at = where + "." + name;
    if (!range.is_array() || range.size() != 2 || !range[0].is_number_integer() || !range[1].is_number_integer())
      return util::fail(at, "expected [low, high], two integers (a closed range), got " + range.dump());
    const int64_t lo = range[0].get<int64_t>(), hi = range[1].get<int64_t>();
    if (lo > hi) return util::fail(at, fmt::format("the range [{}, {}] is empty (low above high)", lo, hi));
    r.bounds[name] = {lo, hi};
  }
  return r;
}

nlohmann::json region_json(const Region& r) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, range] : r.bounds) j[name] = {range.first, range.second};
  return j;
}

}  // namespace kwb::library
