#include "store/decision_repository.hpp"

#include "store/event_repository.hpp"
#include "store/statement.hpp"

namespace kwb::store {

util::Result<bool> DecisionRepository::record(const DecisionRecord& d) {
  auto guard = m_db.lock();
  // The decision and its event commit together: a reader sees both or neither.
  if (auto b = m_db.exec("BEGIN IMMEDIATE"); !b) return std::unexpected(b.error());
  auto done = insert(d);
  if (done && *done) {
    nlohmann::json data = {{"decision", d.decision}, {"reason", d.reason},
                           {"commit", d.commit_id.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.commit_id)}};
    if (auto e = EventRepository(m_db).append(d.candidate_id, "decision", data); !e) done = std::unexpected(e.error());
  }
  if (!done || !*done) {
    m_db.rollback();
    return done;
  }
  if (auto c = m_db.exec("COMMIT"); !c) {
    m_db.rollback();
    return std::unexpected(c.error());
  }
  return true;
}

util::Result<bool> DecisionRepository::insert(const DecisionRecord& d) {
  Statement st(m_db.handle(),
               "INSERT INTO decisions (candidate_id, decision, reason, commit_id, token_id) VALUES (?1, ?2, ?3, ?4, ?5) "
               "ON CONFLICT (candidate_id) DO NOTHING");
  if (!st.ok()) return m_db.failure(st);
  st.bind(1, d.candidate_id).bind(2, d.decision).bind(3, d.reason);
  if (d.commit_id.empty()) st.bind_null(4);
  else st.bind(4, d.commit_id);
  st.bind(5, d.token_id);
  if (st.step() != SQLITE_DONE) return m_db.failure(st, "decisions");
  return st.changes() == 1;
}

util::Result<std::optional<DecisionRecord>> DecisionRepository::find(const std::string& candidate_id) {
  auto reader = m_db.reader();
  Statement st(reader.handle(),
               "SELECT candidate_id, decision, reason, coalesce(commit_id, ''), token_id, decided_at FROM decisions "
               "WHERE candidate_id = ?1");
  if (!st.ok()) return m_db.failure(st);
  st.bind(1, candidate_id);
  int rc = st.step();
  if (rc == SQLITE_DONE) return std::optional<DecisionRecord>();
  if (rc != SQLITE_ROW) return m_db.failure(st);
  DecisionRecord d{st.text(0), st.text(1), st.text(2), st.text(3), std::nullopt, st.text(5)};
  if (!st.is_null(4)) d.token_id = st.integer(4);
  return std::optional<DecisionRecord>(d);
}

}  // namespace kwb::store
