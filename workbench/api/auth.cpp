#include "api/auth.hpp"

#include <cctype>
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

namespace {

// The scheme of an Authorization header is case-insensitive (RFC 9110 §11.1).
bool has_bearer_scheme(const std::string& header) {
  static const std::string prefix = "bearer ";
  if (header.size() <= prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(header[i])) != prefix[i]) return false;
  return true;
}

}  // namespace

std::string unauthorized_message(const std::string& header, bool body, const std::filesystem::path& workspace) {
  const std::string how = "send 'Authorization: Bearer <token>' (create one with `kwb token create --role agent`)";
  if (header.empty()) return std::string("missing bearer token: ") + (body ? "a request with a body needs " : "") +
                             (body ? how.substr(5) : how);
  if (!has_bearer_scheme(header)) {
    auto space = header.find(' ');
    if (space == std::string::npos)
      return "the Authorization header holds no scheme: write 'Authorization: Bearer " +
             std::string(header.rfind("kwb_", 0) == 0 ? "kwb_..." : "<token>") + "' (the word Bearer, a space, then the token)";
    return "unsupported authorization scheme '" + header.substr(0, space) + "': " + how;
  }
  if (workspace.empty()) return "unknown or revoked token";
  // The likeliest cause: a token created on another workspace (a mistyped --workspace).
  return "token unknown to this daemon's workspace " + workspace.string() +
         " (or revoked): a token belongs to the workspace whose `kwb token create` made it; create one for this "
         "daemon with `kwb token create --workspace " + workspace.string() + "`";
}

util::Result<std::optional<Principal>> Authenticator::lookup(const std::string& header) {
  const std::string prefix = "Bearer ";
  if (!has_bearer_scheme(header)) return std::nullopt;
  {
    std::lock_guard lock(m_mutex);
    if (!m_lookup && !m_lookup_failed) {
      auto opened = store::TokenLookup::open(m_db.file());
      if (opened) m_lookup = std::move(*opened);
      else if (opened.error().kind == util::ErrorKind::busy) return std::unexpected(opened.error());  // retried next time
      else m_lookup_failed = true;  // e.g. an in-memory database: use the shared connection
    }
  }
  auto rec = m_lookup ? m_lookup->find_live(header.substr(prefix.size()))
                      : store::TokenRepository(m_db).authenticate(header.substr(prefix.size()));
  if (!rec) return std::unexpected(rec.error());
  if (!*rec) return std::nullopt;
  auto role = parse_role((*rec)->role);
  if (!role) return std::nullopt;
  return Principal{(*rec)->id, (*rec)->name, *role};
}

AuthCheck Authenticator::check(const std::string& header, const std::string& address) {
  if (!m_enabled) return {Principal{0, "anonymous", Role::admin}, 0};
  auto now = std::chrono::steady_clock::now();
  auto refill = [&](Bucket& b) {
    double dt = std::chrono::duration<double>(now - b.at).count();
    b.tokens = std::min(m_logins.burst, b.tokens + dt * m_logins.per_s);
    b.at = now;
  };
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_failures.find(address); it != m_failures.end()) {
      refill(it->second);
      if (it->second.tokens < 1)
        return {std::nullopt, std::max(1, int(std::ceil((1 - it->second.tokens) / m_logins.per_s)))};
    }
  }
  auto looked_up = lookup(header);
  if (!looked_up) return {std::nullopt, 0, looked_up.error()};  // not the client's failure
  auto& who = *looked_up;
  if (who || header.empty()) return {who, 0};  // no token at all is not a failed login
  std::lock_guard lock(m_mutex);
  if (m_failures.size() > 10000)  // forget addresses that are back to a full budget
    for (auto it = m_failures.begin(); it != m_failures.end();) {
      refill(it->second);
      it = it->second.tokens >= m_logins.burst ? m_failures.erase(it) : std::next(it);
    }
  auto [it, fresh] = m_failures.try_emplace(address, Bucket{m_logins.burst, now});
  if (!fresh) refill(it->second);
  it->second.tokens -= 1;
  return {std::nullopt, 0};
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
