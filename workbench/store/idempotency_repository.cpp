#include "store/idempotency_repository.hpp"

#include "store/statement.hpp"

namespace kwb::store {

util::Result<KeyBinding> IdempotencyRepository::claim(int64_t token_id, const std::string& key, const std::string& digest) {
  auto guard = m_db.lock();
  Statement ins(m_db.handle(),
                "INSERT INTO idempotency_keys (token_id, key, request_sha256) VALUES (?1, ?2, ?3) "
                "ON CONFLICT (token_id, key) DO NOTHING");
  ins.bind(1, token_id).bind(2, key).bind(3, digest);
  if (ins.step() != SQLITE_DONE) return util::fail(m_db.file().string(), ins.error());
  bool fresh = ins.changes() > 0;
  Statement sel(m_db.handle(), "SELECT request_sha256 FROM idempotency_keys WHERE token_id = ?1 AND key = ?2");
  sel.bind(1, token_id).bind(2, key);
  if (sel.step() != SQLITE_ROW) return util::fail(m_db.file().string(), sel.error());
  return KeyBinding{sel.text(0), fresh};
}

util::Result<void> IdempotencyRepository::release(int64_t token_id, const std::string& key, const std::string& digest) {
  auto guard = m_db.lock();
  Statement st(m_db.handle(),
               "DELETE FROM idempotency_keys WHERE token_id = ?1 AND key = ?2 AND request_sha256 = ?3 AND NOT EXISTS "
               "(SELECT 1 FROM candidates WHERE coalesce(token_id, 0) = ?1 AND idempotency_key = ?2)");
  st.bind(1, token_id).bind(2, key).bind(3, digest);
  if (st.step() != SQLITE_DONE) return util::fail(m_db.file().string(), st.error());
  return {};
}

}  // namespace kwb::store
