#pragma once
// Attempts as a forest (docs/api.md "Lineage"): GET /v1/candidates/{id}/lineage and GET
// /v1/attempts answer with the rows store/lineage_query.hpp reads, each hung under its parent
// when the parent is among them (else a root), with the verified best and the latest marked.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/lineage_query.hpp"

namespace kwb::api {

// The verified best of `rows`: an accepted attempt, a promotable one first, then the fastest
// against the incumbent (an attempt not compared below any that was), then the earliest to get
// there. nullopt when none was accepted.
std::optional<std::string> best_attempt(const std::vector<store::AttemptRow>& rows);
// The newest of `rows` (the largest submission sequence); nullopt when there is none.
std::optional<std::string> latest_attempt(const std::vector<store::AttemptRow>& rows);
// The first line of a verdict's reason.
std::string first_line(const std::string& text);

// {count, total, limit, truncated, best, latest, roots}: each node {id, parent, op, backend,
// created_at, note, state, status, reason (its first line), geomean_vs_incumbent, comparison,
// promotable, best, latest, children}; roots and children oldest first.
nlohmann::json attempt_forest(const store::AttemptRows& rows, int limit);

}  // namespace kwb::api
