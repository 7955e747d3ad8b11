#pragma once
// SQLite database of a workspace (workspace/kwb.db): WAL, foreign keys, versioned migrations
// (migrations.cpp) applied in order on open; synchronous=NORMAL (a commit survives a crash of
// the process), FULL inside a DurableWrite (it survives a power loss too: acknowledged
// submissions and verdicts).
//  - one writer connection, shared by the daemon's threads under lock();
//  - a small pool of read-only connections (reader()): WAL readers see the last commit and never
//    queue behind a writer, in this process or another;
//  - a bounded wait on a lock held elsewhere (k_busy_wait): past it a statement fails with
//    ErrorKind::busy, and while the database stays locked later writers fail after a short wait
//    instead of queueing one full wait each behind the connection's mutex;
//  - failures are classified (failure()): SQLITE_FULL / ENOSPC -> storage_full, SQLITE_BUSY /
//    SQLITE_LOCKED -> busy; the last storage failure is kept for /v1/health until a write succeeds.
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "util/error.hpp"

struct sqlite3;

namespace kwb::store {

class Statement;

class Database {
 public:
  static constexpr std::chrono::milliseconds k_busy_wait{2000};       // writer, lock held elsewhere
  static constexpr std::chrono::milliseconds k_reader_busy_wait{1000};

  static util::Result<Database> open(const std::filesystem::path& file);
  Database(Database&&) noexcept;
  Database& operator=(Database&&) noexcept;
  ~Database();

  // The writer connection.
  sqlite3* handle() const { return m_db; }
  // One connection is shared by the daemon's threads: hold this lock across every statement
  // sequence that must not interleave with another thread's (repositories do, per method).
  std::unique_lock<std::recursive_mutex> lock() const { return std::unique_lock(*m_mutex); }

  // A read-only connection of the pool, for one statement sequence of one thread.
  class Reader {
   public:
    Reader(Reader&& o) noexcept;
    Reader(const Reader&) = delete;
    ~Reader();
    sqlite3* handle() const { return m_handle; }

   private:
    friend class Database;
    Reader(const Database* owner, sqlite3* handle, std::unique_lock<std::recursive_mutex> writer_lock)
        : m_owner(owner), m_handle(handle), m_writer_lock(std::move(writer_lock)) {}
    const Database* m_owner;
    sqlite3* m_handle;
    std::unique_lock<std::recursive_mutex> m_writer_lock;  // held only when the pool falls back to the writer
  };
  Reader reader() const;

  util::Result<void> exec(const std::string& sql);
  // Ends the writer's open transaction, if one is still open, after a statement of it failed
  // (SQLite ends some itself: a full disk, an I/O error). The caller returns that statement's
  // error; a ROLLBACK that fails as well is logged (util::ignore).
  void rollback();
  int schema_version() const;

  // While it lives (under lock()), commits of the writer are fsync'ed before they return (a
  // PRAGMA that fails is logged: the write is then as durable as an ordinary one).
  class DurableWrite {
   public:
    explicit DurableWrite(Database& db);
    ~DurableWrite();
    DurableWrite(const DurableWrite&) = delete;

   private:
    Database& m_db;
  };
  const std::filesystem::path& file() const { return m_file; }

  // The error of a failed statement, classified by its SQLite result code; notes storage and
  // busy failures (health, the fast-fail window).
  util::Unexpected failure(const Statement& st, const std::string& detail = "") const;
  util::Unexpected failure(sqlite3* db, int rc, const std::string& message) const;
  // A write was committed: the storage failure noted before (if any) is over.
  void note_write_ok() const;
  // The last storage_full failure not yet followed by a committed write.
  std::optional<std::string> storage_problem() const;
  // Called on storage_full before a write is retried once: frees space (the daemon evicts its
  // caches); returns true when it freed something. Unset: no retry.
  void set_space_reliever(std::function<bool()> relieve);
  bool relieve_space() const;

  struct Shared;

 private:
  Database(sqlite3* db, std::filesystem::path file);
  sqlite3* m_db = nullptr;
  std::filesystem::path m_file;
  std::unique_ptr<std::recursive_mutex> m_mutex;
  std::unique_ptr<Shared> m_shared;
};

}  // namespace kwb::store
