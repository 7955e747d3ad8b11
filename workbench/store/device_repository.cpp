#include "store/device_repository.hpp"

#include <sqlite3.h>

#include "store/statement.hpp"

namespace kwb::store {

namespace {

std::string text(sqlite3_stmt* st, int col) {
  auto p = sqlite3_column_text(st, col);
  return p ? reinterpret_cast<const char*>(p) : "";
}

DeviceRecord read_row(sqlite3_stmt* st) {
  DeviceRecord r;
  r.id = text(st, 0);
  r.kind = text(st, 1);
  r.name = text(st, 2);
  r.copy_bytes_per_s = sqlite3_column_double(st, 3);
  if (sqlite3_column_type(st, 4) != SQLITE_NULL) r.flops_per_s = sqlite3_column_double(st, 4);
  r.details = nlohmann::json::parse(text(st, 5), nullptr, false);
  if (r.details.is_discarded()) r.details = nlohmann::json::object();
  r.calibrated_at = text(st, 6);
  return r;
}

constexpr const char* k_select =
    "SELECT id, kind, name, copy_bytes_per_s, flops_per_s, details, calibrated_at FROM devices";

}  // namespace

util::Result<std::optional<DeviceRecord>> DeviceRepository::find(const std::string& id) {
  auto reader = m_db.reader();
  Statement st(reader.handle(), std::string(k_select) + " WHERE id = ?1");
  if (!st.ok()) return m_db.failure(st);
  sqlite3_bind_text(st.get(), 1, id.c_str(), -1, SQLITE_TRANSIENT);
  int rc = st.step();
  if (rc == SQLITE_ROW) return read_row(st.get());
  if (rc == SQLITE_DONE) return std::optional<DeviceRecord>{};
  return m_db.failure(st);
}

util::Result<void> DeviceRepository::put(const DeviceRecord& r) {
  auto guard = m_db.lock();
  Statement st(m_db.handle(),
               "INSERT OR REPLACE INTO devices (id, kind, name, copy_bytes_per_s, flops_per_s, details) "
               "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  if (!st.ok()) return m_db.failure(st);
  sqlite3_bind_text(st.get(), 1, r.id.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st.get(), 2, r.kind.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st.get(), 3, r.name.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_double(st.get(), 4, r.copy_bytes_per_s);
  if (r.flops_per_s) sqlite3_bind_double(st.get(), 5, *r.flops_per_s);
  else sqlite3_bind_null(st.get(), 5);
  std::string details = r.details.dump();
  sqlite3_bind_text(st.get(), 6, details.c_str(), -1, SQLITE_TRANSIENT);
  if (st.step() != SQLITE_DONE) return m_db.failure(st);
  m_db.note_write_ok();
  return {};
}

util::Result<std::vector<DeviceRecord>> DeviceRepository::all() {
  auto reader = m_db.reader();
  Statement st(reader.handle(), std::string(k_select) + " ORDER BY id");
  if (!st.ok()) return m_db.failure(st);
  std::vector<DeviceRecord> out;
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) out.push_back(read_row(st.get()));
  if (rc != SQLITE_DONE) return m_db.failure(st);
  return out;
}

}  // namespace kwb::store
