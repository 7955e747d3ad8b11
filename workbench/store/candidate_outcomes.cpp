// A candidate's two outcomes (docs/library.md "Verdict first, decision second"): the verdict,
// written once with state done, and the comparison with the incumbent, written once after it.
#include "store/candidate_repository.hpp"
#include "store/candidate_rows.hpp"
#include "store/statement.hpp"

#include <functional>

namespace kwb::store {

namespace {

util::Unexpected store_failure(const Database& db, const Statement& st) { return db.failure(st); }

std::string dump(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

// The per-workload rows of a verdict (INSERT OR REPLACE: the decision rewrites them with its fields).
util::Result<void> write_results(Database& db, const std::string& id, const nlohmann::json& verdict) {
  for (const auto& w : verdict.value("workloads", nlohmann::json::array())) {
    Statement r(db.handle(),
                "INSERT OR REPLACE INTO results (candidate_id, workload, kind, correct, median_ns, data) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    r.bind(1, id).bind(2, w.value("name", "")).bind(3, w.value("kind", "")).bind(4, int64_t(w.value("correct", false)));
    if (w.contains("time") && w["time"].is_object()) r.bind(5, w["time"].value("median_ns", 0.0));
    else r.bind_null(5);
    r.bind(6, dump(w));
    if (r.step() != SQLITE_DONE) return store_failure(db, r);
  }
  return {};
}

// The leaderboard's rank (a number only: the STRICT column refuses text such as "nan").
constexpr const char* k_speedup =
    "CASE WHEN json_type(?3, '$.summary.geomean_vs_incumbent') IN ('real', 'integer') "
    "THEN json_extract(?3, '$.summary.geomean_vs_incumbent') END";


// One guarded write in one transaction: `update` (binding its own parameters) moves the row, or
// changes nothing when the guard does not hold (false: the first write stands); then the
// verdict's per-workload rows and the events that announce it. A full disk is retried once after
// the daemon's caches were evicted.
util::Result<bool> write_guarded(Database& db, const std::string& id, const nlohmann::json& verdict,
                                 const Events& events, const std::string& update,
                                 const std::function<void(Statement&)>& bind) {
  auto once = [&]() -> util::Result<bool> {
    auto guard = db.lock();
    Database::DurableWrite durable(db);
    if (auto r = db.exec("BEGIN IMMEDIATE;"); !r) return std::unexpected(r.error());
    auto rollback = [&](util::Error e) -> util::Result<bool> {
      db.rollback();
      return std::unexpected(std::move(e));
    };
    Statement st(db.handle(), update);
    bind(st);
    if (st.step() != SQLITE_DONE) return rollback(store_failure(db, st).error());
    if (st.changes() == 0) {
      db.rollback();
      return false;
    }
    if (auto r = write_results(db, id, verdict); !r) return rollback(r.error());
    if (auto r = append_events(db, id, events); !r) return rollback(r.error());
    if (auto r = db.exec("COMMIT;"); !r) return rollback(r.error());
    db.note_write_ok();
    return true;
  };
  auto r = once();
  if (!r && r.error().kind == util::ErrorKind::storage_full && db.relieve_space()) r = once();
  return r;
}

}  // namespace

util::Result<bool> CandidateRepository::finish(const std::string& id, const nlohmann::json& verdict,
                                               core::ComparisonState comparison, const Events& events) {
  const std::string update =
      std::string("UPDATE candidates SET state = 'done', status = ?2, verdict = ?3, speedup = ") + k_speedup +
      ", variant = CASE WHEN variant = '' THEN ?4 ELSE variant END, "  // inferred from the entry symbol
      "comparison_state = ?5, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), "
      "finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?1 AND state NOT IN ('done', 'cancelled')";
  return write_guarded(m_db, id, verdict, events, update, [&](Statement& st) {
    st.bind(1, id).bind(2, verdict.value("status", std::string("error"))).bind(3, dump(verdict));
    st.bind(4, verdict.contains("variant") && verdict["variant"].is_string() ? verdict["variant"].get<std::string>()
                                                                             : std::string());
    st.bind(5, std::string(core::comparison_state_name(comparison)));
  });
}

util::Result<bool> CandidateRepository::decide(const std::string& id, const nlohmann::json& verdict,
                                               const nlohmann::json& comparison, const Events& events) {
  const std::string update =
      std::string("UPDATE candidates SET comparison_state = 'done', comparison = ?2, verdict = ?3, speedup = ") +
      k_speedup + ", updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') "
      "WHERE id = ?1 AND state = 'done' AND comparison_state = 'pending'";
  return write_guarded(m_db, id, verdict, events, update,
                       [&](Statement& st) { st.bind(1, id).bind(2, dump(comparison)).bind(3, dump(verdict)); });
}

util::Result<int> CandidateRepository::begin_comparison(const std::string& id) {
  auto guard = m_db.lock();
  Statement st(m_db.handle(),
               "UPDATE candidates SET comparison_attempts = comparison_attempts + 1 "
               "WHERE id = ?1 AND comparison_state = 'pending' RETURNING comparison_attempts");
  st.bind(1, id);
  int rc = st.step();
  int attempt = rc == SQLITE_ROW ? int(st.integer(0)) : 0;
  if ((rc != SQLITE_ROW && rc != SQLITE_DONE) || (rc == SQLITE_ROW && !st.done())) return store_failure(m_db, st);
  m_db.note_write_ok();
  return attempt;
}

util::Result<std::vector<CandidateRecord>> CandidateRepository::pending_comparisons() {
  auto reader = m_db.reader();
  Statement st(reader.handle(), std::string("SELECT ") + k_candidate_columns +
                                  " FROM candidates WHERE comparison_state = 'pending' ORDER BY seq");
  std::vector<CandidateRecord> out;
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) out.push_back(read_candidate_row(st));
  if (rc != SQLITE_DONE) return store_failure(m_db, st);
  return out;
}

}  // namespace kwb::store
