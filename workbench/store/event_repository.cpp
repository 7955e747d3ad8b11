#include "store/event_repository.hpp"

#include "store/statement.hpp"

namespace kwb::store {

util::Result<EventRecord> EventRepository::append(const std::string& candidate_id, const std::string& kind,
                                                  const nlohmann::json& data) {
  auto guard = m_db.lock();
  Statement st(m_db.handle(), "INSERT INTO events (candidate_id, kind, data) VALUES (?1, ?2, ?3) RETURNING id, at");
  st.bind(1, candidate_id).bind(2, kind).bind(3, data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  if (st.step() != SQLITE_ROW) return m_db.failure(st, "event of " + candidate_id);
  EventRecord e{st.integer(0), candidate_id, st.text(1), kind, data};
  if (!st.done()) return m_db.failure(st, "event of " + candidate_id);  // the commit comes after the row
  m_db.note_write_ok();
  return e;
}

util::Result<std::vector<EventRecord>> EventRepository::after(const std::string& candidate_id, int64_t after_id) {
  auto reader = m_db.reader();
  Statement st(reader.handle(),
               "SELECT id, at, kind, data FROM events WHERE candidate_id = ?1 AND id > ?2 ORDER BY id");
  st.bind(1, candidate_id).bind(2, after_id);
  std::vector<EventRecord> out;
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) {
    auto data = nlohmann::json::parse(st.text(3), nullptr, false);
    out.push_back({st.integer(0), candidate_id, st.text(1), st.text(2), data.is_discarded() ? nlohmann::json() : data});
  }
  if (rc != SQLITE_DONE) return m_db.failure(st);
  return out;
}

util::Result<std::optional<EventRecord>> EventRepository::latest(const std::string& candidate_id, const std::string& kind) {
  auto reader = m_db.reader();
  Statement st(reader.handle(),
               "SELECT id, at, data FROM events WHERE candidate_id = ?1 AND kind = ?2 ORDER BY id DESC LIMIT 1");
  st.bind(1, candidate_id).bind(2, kind);
  int rc = st.step();
  if (rc == SQLITE_DONE) return std::optional<EventRecord>();
  if (rc != SQLITE_ROW) return m_db.failure(st);
  auto data = nlohmann::json::parse(st.text(2), nullptr, false);
  return std::optional<EventRecord>(
      EventRecord{st.integer(0), candidate_id, st.text(1), kind, data.is_discarded() ? nlohmann::json() : data});
}

}  // namespace kwb::store
