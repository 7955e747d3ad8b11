#pragma once
// Bearer tokens with roles. Only the SHA-256 of a token is stored; the token is shown once.
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "store/database.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace kwb::store {

struct TokenRecord {
  int64_t id = 0;
  std::string name, role, created_at;
  bool revoked = false;
};

class TokenRepository {
 public:
  explicit TokenRepository(Database& db) : m_db(db) {}
  static constexpr size_t k_max_name_bytes = 64;
  // Creates a token for `role` ("agent" | "reviewer" | "admin"); returns the secret token text.
  // `name`: 1 to 64 bytes, printable (no control characters).
  util::Result<std::string> create(const std::string& name, const std::string& role);
  // Why `name` is not a valid token name, or "" when it is.
  static std::string check_name(const std::string& name);
  util::Result<std::optional<TokenRecord>> find(int64_t id);
  // Live admin tokens other than `except`.
  util::Result<int64_t> count_live_admins(int64_t except);
  // The live token whose hash matches `secret`, if any.
  util::Result<std::optional<TokenRecord>> authenticate(const std::string& secret);
  util::Result<std::vector<TokenRecord>> all();
  // Marks the token revoked; false when it does not exist or was revoked already.
  util::Result<bool> revoke(int64_t id);

 private:
  Database& m_db;
};

// The token check of every request: a read-only connection of its own (WAL: it never waits for
// the daemon's writers and sees every commit, of any process, at its next lookup) and one
// prepared statement, so a check costs microseconds and no cache can outlive a revocation.
class TokenLookup {
 public:
  static util::Result<std::unique_ptr<TokenLookup>> open(const std::filesystem::path& file);
  ~TokenLookup();
  TokenLookup(const TokenLookup&) = delete;
  TokenLookup& operator=(const TokenLookup&) = delete;
  // The live (not revoked) token whose hash matches `secret`, if any.
  util::Result<std::optional<TokenRecord>> find_live(const std::string& secret);

 private:
  TokenLookup(sqlite3* db, sqlite3_stmt* st, std::filesystem::path file) : m_db(db), m_st(st), m_file(std::move(file)) {}
  std::mutex m_mutex;
  sqlite3* m_db;
  sqlite3_stmt* m_st;
  std::filesystem::path m_file;
};

}  // namespace kwb::store
