#include "store/token_repository.hpp"

#include <cerrno>

#include "store/statement.hpp"
#include "util/hash.hpp"
#include "util/random.hpp"

namespace kwb::store {

namespace {

// A failure of the token lookup's own connection, classified as Database::failure classifies the
// writer's (store/database.hpp): the HTTP layer answers busy 503 and storage_full 507.
util::Unexpected lookup_failure(sqlite3* db, int rc, const std::filesystem::path& file, const std::string& what) {
  const int primary = rc & 0xff;
  const int sys = db ? sqlite3_system_errno(db) : 0;
  const std::string msg = what + ": " + (db ? sqlite3_errmsg(db) : "out of memory");
  if (primary == SQLITE_FULL || (primary == SQLITE_IOERR && (sys == ENOSPC || sys == EDQUOT)))
    return util::fail(util::ErrorKind::storage_full, file.string(),
                      msg + ": no space left on the disk holding the workspace. Free space there and retry");
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
    return util::fail(util::ErrorKind::busy, file.string(),
                      msg + ": another connection holds the database's lock (waited at most " +
                          std::to_string(Database::k_reader_busy_wait.count()) + " ms); retry shortly");
  return util::fail(file.string(), msg);
}

}  // namespace

std::string TokenRepository::check_name(const std::string& name) {
  if (name.empty()) return "name: must not be empty";
  if (name.size() > k_max_name_bytes)
    return "name: longer than " + std::to_string(k_max_name_bytes) + " bytes (" + std::to_string(name.size()) + ")";
  for (unsigned char c : name)
    if (c < 0x20 || c == 0x7f) return "name: control characters are not allowed";
  return "";
}

util::Result<std::string> TokenRepository::create(const std::string& name, const std::string& role) {
  if (auto why = check_name(name); !why.empty()) return util::fail("", why);
  auto guard = m_db.lock();
  if (role != "agent" && role != "reviewer" && role != "admin")
    return util::fail("role", "unknown role '" + role + "' (roles: agent, reviewer, admin)");
  std::string secret = "kwb_" + util::random_hex(24);
  Statement st(m_db.handle(), "INSERT INTO tokens (name, role, hash) VALUES (?1, ?2, ?3)");
  st.bind(1, name).bind(2, role).bind(3, util::sha256_hex(secret));
  if (st.step() != SQLITE_DONE) return util::fail(m_db.file().string(), st.error());
  return secret;
}

util::Result<std::optional<TokenRecord>> TokenRepository::authenticate(const std::string& secret) {
  auto guard = m_db.lock();
  Statement st(m_db.handle(), "SELECT id, name, role, created_at, revoked FROM tokens WHERE hash = ?1 AND revoked = 0");
  st.bind(1, util::sha256_hex(secret));
  int rc = st.step();
  if (rc == SQLITE_DONE) return std::optional<TokenRecord>{};
  if (rc != SQLITE_ROW) return m_db.failure(st, "tokens");  // busy / storage_full classified
  return TokenRecord{st.integer(0), st.text(1), st.text(2), st.text(3), st.integer(4) != 0};
}

util::Result<std::vector<TokenRecord>> TokenRepository::all() {
  auto guard = m_db.lock();
  Statement st(m_db.handle(), "SELECT id, name, role, created_at, revoked FROM tokens ORDER BY id");
  std::vector<TokenRecord> out;
  int rc;
  while ((rc = st.step()) == SQLITE_ROW)
    out.push_back({st.integer(0), st.text(1), st.text(2), st.text(3), st.integer(4) != 0});
  if (rc != SQLITE_DONE) return util::fail(m_db.file().string(), st.error());
  return out;
}

util::Result<std::optional<TokenRecord>> TokenRepository::find(int64_t id) {
  auto guard = m_db.lock();
  Statement st(m_db.handle(), "SELECT id, name, role, created_at, revoked FROM tokens WHERE id = ?1");
  st.bind(1, id);
  int rc = st.step();
  if (rc == SQLITE_DONE) return std::optional<TokenRecord>{};
  if (rc != SQLITE_ROW) return util::fail(m_db.file().string(), st.error());
  return TokenRecord{st.integer(0), st.text(1), st.text(2), st.text(3), st.integer(4) != 0};
}

util::Result<int64_t> TokenRepository::count_live_admins(int64_t except) {
  auto guard = m_db.lock();
  Statement st(m_db.handle(), "SELECT count(*) FROM tokens WHERE role = 'admin' AND revoked = 0 AND id != ?1");
  st.bind(1, except);
  if (st.step() != SQLITE_ROW) return util::fail(m_db.file().string(), st.error());
  return st.integer(0);
}

util::Result<bool> TokenRepository::revoke(int64_t id) {
  auto guard = m_db.lock();
  Statement st(m_db.handle(), "UPDATE tokens SET revoked = 1 WHERE id = ?1 AND revoked = 0");
  st.bind(1, id);
  if (st.step() != SQLITE_DONE) return util::fail(m_db.file().string(), st.error());
  return st.changes() > 0;
}

util::Result<std::unique_ptr<TokenLookup>> TokenLookup::open(const std::filesystem::path& file) {
  sqlite3* db = nullptr;
  if (int rc = sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr); rc != SQLITE_OK) {
    auto failed = lookup_failure(db, rc, file, "token lookup connection");
    sqlite3_close(db);
    return failed;
  }
  // The same bounded wait as the other read-only connections (store/database.hpp).
  sqlite3_busy_timeout(db, int(Database::k_reader_busy_wait.count()));
  sqlite3_stmt* st = nullptr;
  const char* sql = "SELECT id, name, role, created_at, revoked FROM tokens WHERE hash = ?1 AND revoked = 0";
  if (int rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, nullptr); rc != SQLITE_OK) {
    auto failed = lookup_failure(db, rc, file, "token lookup");
    sqlite3_close(db);
    return failed;
  }
  return std::unique_ptr<TokenLookup>(new TokenLookup(db, st, file));
}

TokenLookup::~TokenLookup() {
  sqlite3_finalize(m_st);
  sqlite3_close(m_db);
}

util::Result<std::optional<TokenRecord>> TokenLookup::find_live(const std::string& secret) {
  std::string hash = util::sha256_hex(secret);
  std::lock_guard lock(m_mutex);
  sqlite3_reset(m_st);
  sqlite3_bind_text(m_st, 1, hash.c_str(), int(hash.size()), SQLITE_TRANSIENT);
  int rc = sqlite3_step(m_st);
  auto text = [&](int col) {
    auto p = sqlite3_column_text(m_st, col);
    return p ? std::string(reinterpret_cast<const char*>(p), size_t(sqlite3_column_bytes(m_st, col))) : std::string();
  };
  util::Result<std::optional<TokenRecord>> out = std::optional<TokenRecord>{};
  if (rc == SQLITE_ROW)
    out = TokenRecord{sqlite3_column_int64(m_st, 0), text(1), text(2), text(3), sqlite3_column_int64(m_st, 4) != 0};
  else if (rc != SQLITE_DONE)
    out = lookup_failure(m_db, rc, m_file, "token lookup");
  sqlite3_reset(m_st);  // ends the read transaction: the next lookup sees every later commit
  return out;
}

}  // namespace kwb::store
