#include "store/database.hpp"

#include <sqlite3.h>

#include <chrono>
#include <thread>

#include "store/migrations.hpp"

namespace kwb::store {

util::Result<Database> Database::open(const std::filesystem::path& file) {
  std::error_code ec;
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return util::fail(file.string(), "cannot open database: " + msg);
  }
  sqlite3_busy_timeout(db, 5000);
  Database d(db, file);
  // Switching a new file to WAL fails at once with SQLITE_BUSY (no busy wait) while another
  // connection switches it too: retry a bounded number of times.
  for (int attempt = 0;; ++attempt) {
    auto r = d.exec("PRAGMA journal_mode=WAL;");
    if (r) break;
    if (attempt >= 200 || sqlite3_errcode(db) != SQLITE_BUSY) return std::unexpected(r.error());
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (const char* pragma : {"PRAGMA foreign_keys=ON;", "PRAGMA synchronous=NORMAL;"})
    if (auto r = d.exec(pragma); !r) return std::unexpected(r.error());
  // Migrate under the write lock, re-reading the version there: another process may have
  // migrated between our open and our lock.
  auto steps = migrations();
  if (d.schema_version() < int(steps.size())) {
    if (auto r = d.exec("BEGIN IMMEDIATE;"); !r) return std::unexpected(r.error());
    for (int v = d.schema_version(); v < int(steps.size()); ++v) {
      auto r = d.exec(std::string(steps[size_t(v)]) + "PRAGMA user_version=" + std::to_string(v + 1) + ";");
      if (!r) {
        d.exec("ROLLBACK;");
        return util::fail(file.string(), "migration to schema version " + std::to_string(v + 1) +
                                             " failed: " + r.error().message);
      }
    }
    if (auto r = d.exec("COMMIT;"); !r) return std::unexpected(r.error());
  }
  return d;
}

Database::Database(Database&& o) noexcept : m_db(o.m_db), m_file(std::move(o.m_file)), m_mutex(std::move(o.m_mutex)) {
  o.m_db = nullptr;
}

Database& Database::operator=(Database&& o) noexcept {
  if (this != &o) {
    if (m_db) sqlite3_close(m_db);
    m_db = o.m_db;
    m_file = std::move(o.m_file);
    m_mutex = std::move(o.m_mutex);
    o.m_db = nullptr;
  }
  return *this;
}

Database::~Database() {
  if (m_db) sqlite3_close(m_db);
}

util::Result<void> Database::exec(const std::string& sql) {
  auto guard = lock();
  char* err = nullptr;
  if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(m_db);
    sqlite3_free(err);
    return util::fail(m_file.string(), msg);
  }
  return {};
}

int Database::schema_version() const {
  sqlite3_stmt* st = nullptr;
  int v = 0;
  if (sqlite3_prepare_v2(m_db, "PRAGMA user_version;", -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  return v;
}

}  // namespace kwb::store
