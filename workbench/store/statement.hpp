#pragma once
// A prepared SQLite statement with typed binds and column reads (RAII).
// A statement is done only when step() returns SQLITE_DONE: an autocommit write commits there,
// and a `RETURNING` statement reports its own error (SQLITE_FULL at commit, a constraint) only
// after its rows. Read the rows, then call done() and check it.
#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>

namespace kwb::store {

class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql) : m_db(db) {
    m_prepare_rc = m_rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &m_st, nullptr);
  }
  ~Statement() { sqlite3_finalize(m_st); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  bool ok() const { return m_prepare_rc == SQLITE_OK; }
  sqlite3* db() const { return m_db; }
  // The result code of the failed prepare or of the last step.
  int rc() const { return m_rc; }
  std::string error() const { return sqlite3_errmsg(m_db); }
  sqlite3_stmt* get() const { return m_st; }

  Statement& bind(int i, const std::string& v) {
    sqlite3_bind_text(m_st, i, v.c_str(), int(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int i, const char* v) { return bind(i, std::string(v)); }
  Statement& bind(int i, int64_t v) {
    sqlite3_bind_int64(m_st, i, v);
    return *this;
  }
  Statement& bind(int i, int v) { return bind(i, int64_t(v)); }
  Statement& bind(int i, double v) {
    sqlite3_bind_double(m_st, i, v);
    return *this;
  }
  Statement& bind_null(int i) {
    sqlite3_bind_null(m_st, i);
    return *this;
  }
  template <class T>
  Statement& bind(int i, const std::optional<T>& v) {
    return v ? bind(i, *v) : bind_null(i);
  }

  int step() {  // SQLITE_ROW / SQLITE_DONE / error
    if (m_prepare_rc != SQLITE_OK) return m_prepare_rc;
    return m_rc = sqlite3_step(m_st);
  }
  // Back to before the first step, binds kept (to run it again with new ones).
  void reset() {
    sqlite3_reset(m_st);
    m_rc = SQLITE_OK;
  }
  // Steps past the remaining rows: true once the statement completed (SQLITE_DONE).
  bool done() {
    int rc;
    while ((rc = step()) == SQLITE_ROW) {
    }
    return rc == SQLITE_DONE;
  }
  std::string text(int col) const {
    auto p = sqlite3_column_text(m_st, col);
    return p ? std::string(reinterpret_cast<const char*>(p), size_t(sqlite3_column_bytes(m_st, col))) : "";
  }
  int64_t integer(int col) const { return sqlite3_column_int64(m_st, col); }
  double real(int col) const { return sqlite3_column_double(m_st, col); }
  bool is_null(int col) const { return sqlite3_column_type(m_st, col) == SQLITE_NULL; }
  int changes() const { return sqlite3_changes(m_db); }

 private:
  sqlite3* m_db;
  sqlite3_stmt* m_st = nullptr;
  int m_prepare_rc, m_rc;
};

}  // namespace kwb::store
