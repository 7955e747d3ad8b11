#include "store/fleet_job_repository.hpp"

#include <sqlite3.h>

#include "store/statement.hpp"

namespace kwb::store {

namespace {

std::string fleet_text(sqlite3_stmt* st, int col) {
  auto p = sqlite3_column_text(st, col);
  return p ? reinterpret_cast<const char*>(p) : "";
}

FleetJob fleet_read_row(sqlite3_stmt* st) {
  FleetJob j;
  j.candidate_id = fleet_text(st, 0);
  j.executor = fleet_text(st, 1);
  j.job_id = fleet_text(st, 2);
  j.tries = sqlite3_column_int(st, 3);
  j.attempt = sqlite3_column_int(st, 4);
  j.submitted_at = fleet_text(st, 5);
  return j;
}

constexpr const char* k_fleet_select = "SELECT candidate_id, executor, job_id, tries, attempt, submitted_at FROM fleet_jobs";

}  // namespace

util::Result<void> FleetJobRepository::put(const FleetJob& j) {
  auto guard = m_db.lock();
  Statement st(m_db.handle(),
               "INSERT OR REPLACE INTO fleet_jobs (candidate_id, executor, job_id, tries, attempt) "
               "VALUES (?1, ?2, ?3, ?4, ?5)");
  if (!st.ok()) return m_db.failure(st);
  sqlite3_bind_text(st.get(), 1, j.candidate_id.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st.get(), 2, j.executor.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st.get(), 3, j.job_id.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int(st.get(), 4, j.tries);
  sqlite3_bind_int(st.get(), 5, j.attempt);
  if (st.step() != SQLITE_DONE) return m_db.failure(st);
  m_db.note_write_ok();
  return {};
}

util::Result<std::optional<FleetJob>> FleetJobRepository::find(const std::string& candidate_id) {
  auto reader = m_db.reader();
  Statement st(reader.handle(), std::string(k_fleet_select) + " WHERE candidate_id = ?1");
  if (!st.ok()) return m_db.failure(st);
  sqlite3_bind_text(st.get(), 1, candidate_id.c_str(), -1, SQLITE_TRANSIENT);
  int rc = st.step();
  if (rc == SQLITE_ROW) return fleet_read_row(st.get());
  if (rc == SQLITE_DONE) return std::optional<FleetJob>{};
  return m_db.failure(st);
}

util::Result<std::vector<FleetJob>> FleetJobRepository::all(const std::string& executor) {
  auto reader = m_db.reader();
  Statement st(reader.handle(), std::string(k_fleet_select) + " WHERE executor = ?1 ORDER BY submitted_at");
  if (!st.ok()) return m_db.failure(st);
  sqlite3_bind_text(st.get(), 1, executor.c_str(), -1, SQLITE_TRANSIENT);
  std::vector<FleetJob> out;
  int rc = 0;
  while ((rc = st.step()) == SQLITE_ROW) out.push_back(fleet_read_row(st.get()));
  if (rc != SQLITE_DONE) return m_db.failure(st);
  return out;
}

util::Result<void> FleetJobRepository::remove(const std::string& candidate_id) {
  auto guard = m_db.lock();
  Statement st(m_db.handle(), "DELETE FROM fleet_jobs WHERE candidate_id = ?1");
  if (!st.ok()) return m_db.failure(st);
  sqlite3_bind_text(st.get(), 1, candidate_id.c_str(), -1, SQLITE_TRANSIENT);
  if (st.step() != SQLITE_DONE) return m_db.failure(st);
  m_db.note_write_ok();
  return {};
}

}  // namespace kwb::store
