#include "store/database.hpp"

#include <sqlite3.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <thread>
#include <vector>

#include "store/migrations.hpp"
#include "store/statement.hpp"
#include "util/ignore.hpp"

namespace kwb::store {

namespace {

constexpr int k_pool_size = 4;

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

struct Database::Shared {
  std::mutex pool_mutex;
  std::condition_variable pool_cv;
  std::vector<sqlite3*> idle;
  int opened = 0;
  bool pool_off = false;  // the readers could not be opened: reads use the writer

  // steady ms of the last write that waited the full k_busy_wait in vain: within k_busy_wait
  // of it, writers give up after a short wait (the lock is still held elsewhere).
  std::atomic<int64_t> busy_failed_at{INT64_MIN / 2};

  mutable std::mutex state_mutex;
  std::optional<std::string> storage_problem;
  std::function<bool()> reliever;

  ~Shared() {
    for (auto* h : idle) sqlite3_close(h);
  }
};

namespace {

// Waits in 10 ms steps, bounded by the time since this statement's first call (count 0): the
// statement runs on this thread, and a loaded machine oversleeps steps.
int writer_busy_handler(void* p, int count) {
  thread_local int64_t waiting_since = 0;
  auto* s = static_cast<Database::Shared*>(p);
  int64_t now = now_ms();
  if (count == 0) waiting_since = now;
  bool still_locked = now - s->busy_failed_at.load() < Database::k_busy_wait.count() + (now - waiting_since);
  int64_t limit_ms = still_locked ? 50 : Database::k_busy_wait.count();
  if (now - waiting_since >= limit_ms) {
    if (!still_locked) s->busy_failed_at = now;
    return 0;
  }
  sqlite3_sleep(10);
  return 1;
}

}  // namespace

Database::Database(sqlite3* db, std::filesystem::path file)
    : m_db(db),
      m_file(std::move(file)),
      m_mutex(std::make_unique<std::recursive_mutex>()),
      m_shared(std::make_unique<Shared>()) {}

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
  Database d(db, file);
  sqlite3_busy_handler(db, writer_busy_handler, d.m_shared.get());
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
        d.rollback();
        return util::fail(r.error().kind, file.string(),
                          "migration to schema version " + std::to_string(v + 1) + " failed: " + r.error().message);
      }
    }
    if (auto r = d.exec("COMMIT;"); !r) return std::unexpected(r.error());
  }
  return d;
}

Database::Database(Database&& o) noexcept
    : m_db(o.m_db), m_file(std::move(o.m_file)), m_mutex(std::move(o.m_mutex)), m_shared(std::move(o.m_shared)) {
  o.m_db = nullptr;
}

Database& Database::operator=(Database&& o) noexcept {
  if (this != &o) {
    m_shared.reset();
    if (m_db) sqlite3_close(m_db);
    m_db = o.m_db;
    m_file = std::move(o.m_file);
    m_mutex = std::move(o.m_mutex);
    m_shared = std::move(o.m_shared);
    o.m_db = nullptr;
  }
  return *this;
}

Database::~Database() {
  m_shared.reset();  // readers first
  if (m_db) sqlite3_close(m_db);
}

Database::Reader Database::reader() const {
  auto& s = *m_shared;
  std::unique_lock lock(s.pool_mutex);
  while (!s.pool_off) {
    if (!s.idle.empty()) {
      sqlite3* h = s.idle.back();
      s.idle.pop_back();
      return Reader(this, h, {});
    }
    if (s.opened < k_pool_size) {
      ++s.opened;
      lock.unlock();
      sqlite3* h = nullptr;
      bool ok = sqlite3_open_v2(m_file.c_str(), &h, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr) == SQLITE_OK;
      if (ok) {
        sqlite3_busy_timeout(h, int(k_reader_busy_wait.count()));
        ok = sqlite3_exec(h, "PRAGMA query_only=1;", nullptr, nullptr, nullptr) == SQLITE_OK;
      }
      lock.lock();
      if (ok) return Reader(this, h, {});
      sqlite3_close(h);
      --s.opened;
      s.pool_off = true;  // e.g. a file that cannot be opened twice: read through the writer
      break;
    }
    s.pool_cv.wait(lock);
  }
  lock.unlock();
  return Reader(this, m_db, this->lock());
}

Database::Reader::Reader(Reader&& o) noexcept
    : m_owner(o.m_owner), m_handle(o.m_handle), m_writer_lock(std::move(o.m_writer_lock)) {
  o.m_handle = nullptr;
}

Database::Reader::~Reader() {
  if (!m_handle || m_writer_lock.owns_lock() || !m_owner->m_shared) return;
  auto& s = *m_owner->m_shared;
  {
    std::lock_guard lock(s.pool_mutex);
    s.idle.push_back(m_handle);
  }
  s.pool_cv.notify_one();
}

util::Result<void> Database::exec(const std::string& sql) {
  auto guard = lock();
  char* err = nullptr;
  int rc = sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(m_db);
    sqlite3_free(err);
    return failure(m_db, rc, msg);
  }
  return {};
}

void Database::rollback() {
  auto guard = lock();
  if (!m_db || sqlite3_get_autocommit(m_db) != 0) return;  // no transaction open (SQLite ended it)
  util::ignore(exec("ROLLBACK;"), "ending a failed transaction (the statement's own error is what the caller reports)");
}

Database::DurableWrite::DurableWrite(Database& db) : m_db(db) {
  util::ignore(m_db.exec("PRAGMA synchronous=FULL;"),
               "the next commit is durable against a crash of the process only, not against a power loss");
}

Database::DurableWrite::~DurableWrite() {
  util::ignore(m_db.exec("PRAGMA synchronous=NORMAL;"), "later commits are fsync'ed too (slower, not less safe)");
}

int Database::schema_version() const {
  sqlite3_stmt* st = nullptr;
  int v = 0;
  if (sqlite3_prepare_v2(m_db, "PRAGMA user_version;", -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  return v;
}

util::Unexpected Database::failure(const Statement& st, const std::string& detail) const {
  return failure(st.db(), st.rc(), detail.empty() ? st.error() : st.error() + " (" + detail + ")");
}

util::Unexpected Database::failure(sqlite3* db, int rc, const std::string& message) const {
  int primary = rc & 0xff;
  int sys = db ? sqlite3_system_errno(db) : 0;
  if (primary == SQLITE_FULL || (primary == SQLITE_IOERR && (sys == ENOSPC || sys == EDQUOT))) {
    std::string msg = message +
                      ": no space left on the disk holding the workspace; nothing was stored. Free space there "
                      "(the daemon evicts its caches first) and retry";
    if (m_shared) {
      std::lock_guard lock(m_shared->state_mutex);
      m_shared->storage_problem = m_file.string() + ": " + msg;
    }
    // A commit that failed for want of space may leave its transaction open: end it, so the
    // next statement does not run inside it (callers in a transaction roll back anyway).
    if (db == m_db && m_db && sqlite3_get_autocommit(m_db) == 0) sqlite3_exec(m_db, "ROLLBACK;", nullptr, nullptr, nullptr);
    return util::fail(util::ErrorKind::storage_full, m_file.string(), msg);
  }
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
    return util::fail(util::ErrorKind::busy, m_file.string(),
                      message + ": another connection holds the database's lock (waited at most " +
                          std::to_string(k_busy_wait.count()) + " ms); retry shortly");
  return util::fail(m_file.string(), message);
}

void Database::note_write_ok() const {
  if (!m_shared) return;
  std::lock_guard lock(m_shared->state_mutex);
  m_shared->storage_problem.reset();
}

std::optional<std::string> Database::storage_problem() const {
  if (!m_shared) return std::nullopt;
  std::lock_guard lock(m_shared->state_mutex);
  return m_shared->storage_problem;
}

void Database::set_space_reliever(std::function<bool()> relieve) {
  std::lock_guard lock(m_shared->state_mutex);
  m_shared->reliever = std::move(relieve);
}

bool Database::relieve_space() const {
  std::function<bool()> f;
  {
    std::lock_guard lock(m_shared->state_mutex);
    f = m_shared->reliever;
  }
  return f && f();
}

}  // namespace kwb::store
