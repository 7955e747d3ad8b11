#pragma once
// One page of an op's leaderboard, ranked in SQL (the candidates.speedup column and its index,
// migrations 7 and 9: an index that covers every column read) so that a page costs the same with 10 000 candidates as with 10: the accepted
// candidates of an op, filtered by backend and review decision, best geomean against the
// incumbent first (or newest first), with the total and the fastest candidate of each source.
#include <optional>
#include <string>
#include <vector>

#include "store/database.hpp"

namespace kwb::store {

struct LeaderboardQuery {
  std::string op;
  std::optional<std::string> backend;   // cpu | cuda | cuda-launcher; none: every backend
  std::optional<std::string> decision;  // promoted | rejected | pending (no decision yet); none: all
  bool newest_first = false;            // false: best speed-up first (ties: newest first)
  int64_t offset = 0;
  int limit = 20;
};

struct LeaderboardEntry {
  std::string id;
  std::optional<std::string> decision;  // promoted | rejected
  std::string leader;                   // the best-ranked candidate of the filtered set with the same source
};

struct LeaderboardPage {
  int64_t total = 0;             // rows of the filtered set, whatever the page
  int64_t distinct_sources = 0;  // distinct sources among them
  std::vector<LeaderboardEntry> entries;
};

// The statements leaderboard_page runs (?1 op, ?2 backend, ?3 decision, ?4 limit, ?5 offset,
// ?6 a source): the counts of the filtered set, the page, and the leader of one source. Public
// so a test can hold their query plans to the covering indexes.
struct LeaderboardSql {
  std::string count, page, leader;
};
LeaderboardSql leaderboard_sql(const LeaderboardQuery& q);

util::Result<LeaderboardPage> leaderboard_page(const Database& db, const LeaderboardQuery& q);

}  // namespace kwb::store
