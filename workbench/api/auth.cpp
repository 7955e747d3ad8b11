#include "api/auth.hpp"

#include <cmath>

#include "store/token_repository.hpp"
#include "util/hash.hpp"

namespace kwb::api {

std::optional<Role> parse_role(const std::string& s) {
  if (s == "agent") return Role::agent;
  if (s == "reviewer") return Role::reviewer;
  if (s == "admin") return Role::admin;
  return std::nullopt;
}

std::string_view role_name(Role r) {
  switch (r) {
    case Role::agent: return "agent";
    case Role::reviewer: return "reviewer";
    case Role::admin: return "admin";
  }
  return "agent";
}

std::optional<Principal> Authenticator::authenticate(const std::string& header) {
  if (!m_enabled) return Principal{0, "anonymous", Role::admin};
  const std::string prefix = "Bearer ";
  if (header.size() <= prefix.size() || header.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  std::string secret = header.substr(prefix.size());
  std::string key = util::sha256_hex(secret);
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_cache.find(key); it != m_cache.end()) return it->second;
  }
  store::TokenRepository tokens(m_db);
  auto rec = tokens.authenticate(secret);
  if (!rec || !*rec) return std::nullopt;
  auto role = parse_role((*rec)->role);
  if (!role) return std::nullopt;
  Principal p{(*rec)->id, (*rec)->name, *role};
  std::lock_guard lock(m_mutex);
  m_cache[key] = p;
  return p;
}

void Authenticator::forget_all() {
  std::lock_guard lock(m_mutex);
  m_cache.clear();
}

int RateLimiter::acquire(int64_t token_id) {
  auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(m_mutex);
  auto [it, fresh] = m_buckets.try_emplace(token_id, Bucket{m_burst, now});
  Bucket& b = it->second;
  if (!fresh) {
    double dt = std::chrono::duration<double>(now - b.at).count();
    b.tokens = std::min(m_burst, b.tokens + dt * m_rate);
    b.at = now;
  }
  if (b.tokens >= 1) {
    b.tokens -= 1;
    return 0;
  }
  return std::max(1, int(std::ceil((1 - b.tokens) / m_rate)));
}

}  // namespace kwb::api
