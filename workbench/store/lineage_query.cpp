#include "store/lineage_query.hpp"

#include "store/statement.hpp"

namespace kwb::store {

namespace {

// What a row of either query reads: the reason is the verdict's, the promotable flag the stored
// comparison's once done, else the verdict's own decision (a verdict that carries it: the first
// kernel of an op, the incumbent's own source).
constexpr const char* k_attempt_columns =
    "c.id, c.parent, c.seq, c.op, c.backend, c.created_at, c.note, c.state, c.status, "
    "CASE WHEN json_valid(c.verdict) THEN json_extract(c.verdict, '$.reason') END, c.speedup, c.comparison_state, "
    "CASE WHEN c.comparison_state = 'done' AND json_valid(c.comparison) THEN json_extract(c.comparison, '$.promotable') "
    "WHEN json_valid(c.verdict) THEN json_extract(c.verdict, '$.summary.decision.promotable') END";

// The root of ?1's tree: up the parent links (a bounded walk: parents are older than their
// children, so there is no cycle, but a corrupt row must not loop), then every descendant of it
// down candidates_parent.
constexpr const char* k_attempt_tree =
    "WITH RECURSIVE up(id, parent, depth) AS ("
    "  SELECT id, parent, 0 FROM candidates WHERE id = ?1"
    "  UNION ALL SELECT p.id, p.parent, up.depth + 1 FROM candidates p JOIN up ON p.id = up.parent WHERE up.depth < 100000"
    "), root(id) AS (SELECT id FROM up ORDER BY depth DESC LIMIT 1), "
    "tree(id) AS (SELECT id FROM root UNION SELECT k.id FROM candidates k JOIN tree ON k.parent = tree.id) ";

AttemptRow read_attempt_row(const Statement& st) {
  AttemptRow r;
  r.id = st.text(0);
  if (!st.is_null(1)) r.parent = st.text(1);
  r.seq = st.integer(2);
  r.op = st.text(3);
  r.backend = st.text(4);
  r.created_at = st.text(5);
  r.note = st.text(6);
  r.state = st.text(7);
  if (!st.is_null(8)) r.status = st.text(8);
  r.reason = st.text(9);
  if (!st.is_null(10)) r.geomean_vs_incumbent = st.real(10);
  r.comparison = st.text(11);
  if (!st.is_null(12)) r.promotable = st.integer(12) != 0;
  return r;
}

}  // namespace

const LineageSql& lineage_sql() {
  static const LineageSql k = {
      std::string(k_attempt_tree) + "SELECT " + k_attempt_columns + " FROM candidates c WHERE c.id IN (SELECT id FROM tree) "
                            "ORDER BY c.seq DESC LIMIT ?2",
      std::string(k_attempt_tree) + "SELECT count(*) FROM tree",
      std::string("SELECT ") + k_attempt_columns + " FROM candidates c WHERE coalesce(c.token_id, 0) = ?1 AND c.op = ?2 "
                                           "ORDER BY c.seq DESC LIMIT ?3",
      "SELECT count(*) FROM candidates c WHERE coalesce(c.token_id, 0) = ?1 AND c.op = ?2"};
  return k;
}

util::Result<std::optional<AttemptRows>> lineage_rows(const Database& db, const std::string& id, int limit) {
  auto reader = db.reader();
  AttemptRows out;
  {
    Statement st(reader.handle(), lineage_sql().lineage_count);
    if (!st.ok()) return db.failure(st);
    st.bind(1, id);
    if (st.step() != SQLITE_ROW) return db.failure(st);
    out.total = st.integer(0);
  }
  if (out.total == 0) return std::optional<AttemptRows>();
  Statement st(reader.handle(), lineage_sql().lineage);
  if (!st.ok()) return db.failure(st);
  st.bind(1, id).bind(2, int64_t(limit));
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) out.rows.push_back(read_attempt_row(st));
  if (rc != SQLITE_DONE) return db.failure(st);
  return std::optional<AttemptRows>(std::move(out));
}

util::Result<AttemptRows> attempt_rows(const Database& db, int64_t token_id, const std::string& op, int limit) {
  auto reader = db.reader();
  AttemptRows out;
  {
    Statement st(reader.handle(), lineage_sql().attempts_count);
    if (!st.ok()) return db.failure(st);
    st.bind(1, token_id).bind(2, op);
    if (st.step() != SQLITE_ROW) return db.failure(st);
    out.total = st.integer(0);
  }
  Statement st(reader.handle(), lineage_sql().attempts);
  if (!st.ok()) return db.failure(st);
  st.bind(1, token_id).bind(2, op).bind(3, int64_t(limit));
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) out.rows.push_back(read_attempt_row(st));
  if (rc != SQLITE_DONE) return db.failure(st);
  return out;
}

}  // namespace kwb::store
