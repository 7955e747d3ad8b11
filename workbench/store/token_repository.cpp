#include "store/token_repository.hpp"

#include "store/statement.hpp"
#include "util/hash.hpp"
#include "util/random.hpp"

namespace kwb::store {

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
  if (rc != SQLITE_ROW) return util::fail(m_db.file().string(), st.error());
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

}  // namespace kwb::store
