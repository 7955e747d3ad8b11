#include "api/attempt_tree.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace kwb::api {

namespace {

using nlohmann::json;

json optional_json(const auto& v) { return v ? json(*v) : json(nullptr); }

json node_json(const store::AttemptRow& r, const std::optional<std::string>& best,
               const std::optional<std::string>& latest) {
  return {{"id", r.id},
          {"parent", optional_json(r.parent)},
          {"op", r.op},
          {"backend", r.backend},
          {"created_at", r.created_at},
          {"note", r.note},
          {"state", r.state},
          {"status", optional_json(r.status)},
          {"reason", first_line(r.reason)},
          {"geomean_vs_incumbent", optional_json(r.geomean_vs_incumbent)},
          {"comparison", r.comparison},
          {"promotable", optional_json(r.promotable)},
          {"best", best && *best == r.id},
          {"latest", latest && *latest == r.id},
          {"children", json::array()}};
}

}  // namespace

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::optional<std::string> best_attempt(const std::vector<store::AttemptRow>& rows) {
  const store::AttemptRow* best = nullptr;
  // Greater is better: promotable, then faster (not compared: below any number), then earlier.
  auto rank = [](const store::AttemptRow& r) {
    return std::tuple(r.promotable.value_or(false), r.geomean_vs_incumbent.has_value(),
                      r.geomean_vs_incumbent.value_or(0.0), -r.seq);
  };
  for (const auto& r : rows)
    if (r.status == "accepted" && (!best || rank(r) > rank(*best))) best = &r;
  return best ? std::optional(best->id) : std::nullopt;
}

std::optional<std::string> latest_attempt(const std::vector<store::AttemptRow>& rows) {
  auto it = std::max_element(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.seq < b.seq; });
  return it == rows.end() ? std::nullopt : std::optional(it->id);
}

json attempt_forest(const store::AttemptRows& set, int limit) {
  const auto best = best_attempt(set.rows), latest = latest_attempt(set.rows);
  // Oldest first: a parent is always older than its children, so it is placed before them.
  std::vector<const store::AttemptRow*> order;
  for (const auto& r : set.rows) order.push_back(&r);
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) { return a->seq < b->seq; });
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < order.size(); ++i) index[order[i]->id] = i;
  std::vector<std::vector<size_t>> children(order.size());
  std::vector<size_t> roots;
  for (size_t i = 0; i < order.size(); ++i) {
    auto up = order[i]->parent ? index.find(*order[i]->parent) : index.end();
    if (up != index.end() && up->second < i) children[up->second].push_back(i);
    else roots.push_back(i);
  }
  // Built from the newest node up, so every child's subtree is complete before its parent's.
  std::vector<json> nodes(order.size());
  for (size_t i = order.size(); i-- > 0;) {
    nodes[i] = node_json(*order[i], best, latest);
    for (size_t c : children[i]) nodes[i]["children"].push_back(std::move(nodes[c]));
  }
  json out_roots = json::array();
  for (size_t r : roots) out_roots.push_back(std::move(nodes[r]));
  return {{"count", set.rows.size()},
          {"total", set.total},
          {"limit", limit},
          {"truncated", int64_t(set.rows.size()) < set.total},
          {"best", optional_json(best)},
          {"latest", optional_json(latest)},
          {"roots", out_roots}};
}

}  // namespace kwb::api
