#include "store/leaderboard_query.hpp"

#include <map>

#include "store/statement.hpp"

namespace kwb::store {

namespace {

// The filter of the board, shared by every statement: ?1 op, ?2 backend, ?3 decision. The
// decision is a subquery on decisions' own index, not a join, so the candidates' side stays
// on the covering indexes of migration 9.
std::string board_filter(const LeaderboardQuery& q) {
  std::string sql = "c.op = ?1 AND c.status = 'accepted'";
  if (q.backend) sql += " AND c.backend = ?2";
  if (q.decision && *q.decision == "pending")
    sql += " AND NOT EXISTS (SELECT 1 FROM decisions d WHERE d.candidate_id = c.id)";
  else if (q.decision)
    sql += " AND EXISTS (SELECT 1 FROM decisions d WHERE d.candidate_id = c.id AND d.decision = ?3)";
  return sql;
}

void bind_filters(Statement& st, const LeaderboardQuery& q) {
  st.bind(1, q.op);
  if (q.backend) st.bind(2, *q.backend);
  if (q.decision && *q.decision != "pending") st.bind(3, *q.decision);
}

// The board's order: best speed-up first (a NULL, not compared, is below every number in
// SQLite's order and so last), ties newest first; or newest first.
const char* board_order(const LeaderboardQuery& q) { return q.newest_first ? "c.seq DESC" : "c.speedup DESC, c.seq DESC"; }

}  // namespace

LeaderboardSql leaderboard_sql(const LeaderboardQuery& q) {
  const std::string where = board_filter(q);
  // Each statement reads index entries only: the page walks an index in the board's order and
  // stops after offset + limit entries; the leader of a source is the first entry of that
  // source in the same order. Only the page's rows look up their decision. (A window over the
  // whole filtered set sorted all of it twice: 50 ms of a 10 000-candidate page.)
  return {"SELECT count(*), count(DISTINCT c.source_sha256) FROM candidates c WHERE " + where,
          "SELECT c.id, c.source_sha256, (SELECT d.decision FROM decisions d WHERE d.candidate_id = c.id) "
          "FROM candidates c WHERE " + where + " ORDER BY " + board_order(q) + " LIMIT ?4 OFFSET ?5",
          "SELECT c.id FROM candidates c WHERE " + where + " AND c.source_sha256 = ?6 ORDER BY c.speedup DESC, "
          "c.seq DESC LIMIT 1"};
}

util::Result<LeaderboardPage> leaderboard_page(const Database& db, const LeaderboardQuery& q) {
  auto reader = db.reader();
  LeaderboardPage page;
  const LeaderboardSql sql = leaderboard_sql(q);
  {
    Statement st(reader.handle(), sql.count);
    if (!st.ok()) return db.failure(st);
    bind_filters(st, q);
    if (st.step() != SQLITE_ROW) return db.failure(st);
    page.total = st.integer(0);
    page.distinct_sources = st.integer(1);
  }
  std::vector<std::string> sources;
  {
    Statement st(reader.handle(), sql.page);
    if (!st.ok()) return db.failure(st);
    bind_filters(st, q);
    st.bind(4, int64_t(q.limit)).bind(5, q.offset);
    int rc;
    while ((rc = st.step()) == SQLITE_ROW) {
      LeaderboardEntry e{st.text(0), std::nullopt, ""};
      if (!st.is_null(2)) e.decision = st.text(2);
      page.entries.push_back(std::move(e));
      sources.push_back(st.text(1));
    }
    if (rc != SQLITE_DONE) return db.failure(st);
  }
  // The leader of each source on the page, once per source (the same read transaction).
  std::map<std::string, std::string> leaders;
  Statement st(reader.handle(), sql.leader);
  if (!st.ok()) return db.failure(st);
  for (size_t i = 0; i < page.entries.size(); ++i) {
    auto [at, fresh] = leaders.try_emplace(sources[i]);
    if (fresh) {
      st.reset();
      bind_filters(st, q);
      st.bind(6, sources[i]);
      int rc = st.step();
      if (rc == SQLITE_ROW) at->second = st.text(0);
      else if (rc != SQLITE_DONE) return db.failure(st);
    }
    page.entries[i].leader = at->second.empty() ? page.entries[i].id : at->second;
  }
  return page;
}

}  // namespace kwb::store
