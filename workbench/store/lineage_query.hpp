#pragma once
// The attempts an agent made (docs/api.md "Lineage"): the tree a candidate belongs to through its
// `parent` links, and one token's candidates of one op; each newest first and capped, read through
// the indexes of migration 13 (candidates_parent, candidates_token_op) rather than a scan of
// every candidate. api/attempt_tree.hpp makes the tree with the best and the latest marked.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/database.hpp"

namespace kwb::store {

// One attempt: what an agent needs to remember of it.
struct AttemptRow {
  std::string id;
  std::optional<std::string> parent;
  int64_t seq = 0;
  std::string op, backend, created_at, note, state;
  std::optional<std::string> status;           // the verdict's, once done
  std::string reason;                          // the verdict's reason ("" until done)
  std::optional<double> geomean_vs_incumbent;  // the verdict's summary; none: not compared
  std::string comparison;                      // none | pending | done
  std::optional<bool> promotable;              // the decision's, once there is one
};

struct AttemptRows {
  std::vector<AttemptRow> rows;  // newest first, at most the limit
  int64_t total = 0;             // all of them, whatever the limit
};

// The statements, with their parameters: lineage (?1 a candidate id, ?2 the limit) and its count
// (?1); attempts (?1 the token, 0 for none; ?2 the op; ?3 the limit) and its count (?1, ?2).
// Public so a test can hold their query plans to the indexes.
struct LineageSql {
  std::string lineage, lineage_count, attempts, attempts_count;
};
const LineageSql& lineage_sql();

// The tree `id` belongs to: its root (found through the parent links, across tokens and ops), and
// every descendant of the root. nullopt when there is no candidate `id`.
util::Result<std::optional<AttemptRows>> lineage_rows(const Database& db, const std::string& id, int limit);
// The candidates a token (0: none, --no-auth) submitted for an op.
util::Result<AttemptRows> attempt_rows(const Database& db, int64_t token_id, const std::string& op, int limit);

}  // namespace kwb::store
