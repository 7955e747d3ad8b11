#pragma once
// Bearer tokens with roles. Only the SHA-256 of a token is stored; the token is shown once.
#include <optional>
#include <string>
#include <vector>

#include "store/database.hpp"

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

}  // namespace kwb::store
