#pragma once
// SQLite database of a workspace (workspace/kwb.db): WAL, foreign keys, busy timeout and
// versioned migrations (migrations.cpp) applied in order on open.
#include <filesystem>
#include <memory>
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
  util::Result<void> exec(const std::string& sql);
  int schema_version() const;
  const std::filesystem::path& file() const { return m_file; }

 private:
  Database(sqlite3* db, std::filesystem::path file) : m_db(db), m_file(std::move(file)) {}
  sqlite3* m_db = nullptr;
  std::filesystem::path m_file;
};

}  // namespace kwb::store
