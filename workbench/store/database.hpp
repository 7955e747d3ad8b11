#pragma once
// SQLite database of a workspace (workspace/kwb.db): WAL, foreign keys, busy timeout and
// versioned migrations (migrations.cpp) applied in order on open.
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

#include "util/error.hpp"

struct sqlite3;

namespace kwb::store {

class Database {
 public:
  static util::Result<Database> open(const std::filesystem::path& file);
  Database(Database&&) noexcept;
  Database& operator=(Database&&) noexcept;
  ~Database();

  sqlite3* handle() const { return m_db; }
  // One connection is shared by the daemon's threads: hold this lock across every statement
  // sequence that must not interleave with another thread's (repositories do, per method).
  std::unique_lock<std::recursive_mutex> lock() const { return std::unique_lock(*m_mutex); }
  util::Result<void> exec(const std::string& sql);
  int schema_version() const;
  const std::filesystem::path& file() const { return m_file; }

 private:
  Database(sqlite3* db, std::filesystem::path file)
      : m_db(db), m_file(std::move(file)), m_mutex(std::make_unique<std::recursive_mutex>()) {}
  sqlite3* m_db = nullptr;
  std::filesystem::path m_file;
  std::unique_ptr<std::recursive_mutex> m_mutex;
};

}  // namespace kwb::store
