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
  // Creates a token for `role` ("agent" | "reviewer" | "admin"); returns the secret token text.
  util::Result<std::string> create(const std::string& name, const std::string& role);
  // The live token whose hash matches `secret`, if any.
  util::Result<std::optional<TokenRecord>> authenticate(const std::string& secret);
  util::Result<std::vector<TokenRecord>> all();
  util::Result<bool> revoke(int64_t id);

 private:
  Database& m_db;
};

}  // namespace kwb::store
