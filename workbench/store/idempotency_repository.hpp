#pragma once
// Idempotency-Key bindings: the digest of the body a key was first used with, per token.
#include <string>

#include "store/database.hpp"

namespace kwb::store {

struct KeyBinding {
  std::string request_sha256;  // the digest the key is bound to
  bool fresh = false;          // bound by this call
};

class IdempotencyRepository {
 public:
  explicit IdempotencyRepository(Database& db) : m_db(db) {}
  // Binds `key` of `token_id` (0: no token) to `digest` unless it is bound already; returns the
  // binding either way.
  util::Result<KeyBinding> claim(int64_t token_id, const std::string& key, const std::string& digest);
  // Undoes a fresh claim whose submission failed before its candidate was stored (no candidate
  // carries the key), so that the key can be used again with another body.
  util::Result<void> release(int64_t token_id, const std::string& key, const std::string& digest);

 private:
  Database& m_db;
};

}  // namespace kwb::store
