#pragma once
// Bearer-token authentication with roles (agent < reviewer < admin) and a per-token rate limit.
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "api/http_limits.hpp"
#include "store/database.hpp"
#include "store/token_repository.hpp"

namespace kwb::api {

enum class Role { agent = 0, reviewer = 1, admin = 2 };
std::optional<Role> parse_role(const std::string& s);
std::string_view role_name(Role r);

struct Principal {
  int64_t token_id = 0;  // 0: anonymous (--no-auth)
  std::string name;
  Role role = Role::agent;
};

// The outcome of checking an Authorization header from a client address.
struct AuthCheck {
  std::optional<Principal> who;
  int retry_after_s = 0;  // > 0: this address failed too often; refused without looking
  // The token could not be looked up (the database locked past its bounded wait, a full disk):
  // answered by its kind as every route answers one (api/http_util.hpp send_failure: busy 503,
  // storage_full 507), and not counted as a failed login of the address.
  std::optional<util::Error> failure;
};

// The message of a 401 for this Authorization header: missing, a token without the "Bearer "
// scheme (a hint to add it), another scheme, or an unknown or revoked token.
// `workspace`: the daemon's, named for an unknown token (the likeliest cause is a token created on
// another workspace).
std::string unauthorized_message(const std::string& authorization_header, bool body,
                                 const std::filesystem::path& workspace = {});

class Authenticator {
 public:
  Authenticator(store::Database& db, bool enabled, LoginLimits logins = {})
      : m_db(db), m_enabled(enabled), m_logins(logins) {}
  bool enabled() const { return m_enabled; }
  // The folder of the database the tokens live in.
  std::filesystem::path workspace() const { return m_db.file().parent_path(); }
  // The principal for an Authorization header value ("Bearer kwb_..."), or none when it is
  // missing, unknown or revoked. Every call reads the database (no cache), so a revocation by
  // any process takes effect at the next request. With auth disabled every request is an
  // anonymous admin. An unknown token counts as a failed login of `address`; an address past
  // its failures is refused (retry_after_s) before its token is looked at. A lookup that fails
  // sets `failure` (never throws).
  AuthCheck check(const std::string& authorization_header, const std::string& address);

 private:
  util::Result<std::optional<Principal>> lookup(const std::string& authorization_header);
  struct Bucket {
    double tokens;
    std::chrono::steady_clock::time_point at;
  };
  store::Database& m_db;
  bool m_enabled;
  LoginLimits m_logins;
  std::unique_ptr<store::TokenLookup> m_lookup;  // opened at the first check
  bool m_lookup_failed = false;
  std::mutex m_mutex;
  std::map<std::string, Bucket> m_failures;  // by client address
};

// Token bucket per token id: `rate` requests per second, up to `burst` at once.
class RateLimiter {
 public:
  RateLimiter(double rate, double burst) : m_rate(rate), m_burst(burst) {}
  // 0 when allowed; else the seconds to wait before retrying.
  int acquire(int64_t token_id);

 private:
  struct Bucket {
    double tokens;
    std::chrono::steady_clock::time_point at;
  };
  double m_rate, m_burst;
  std::mutex m_mutex;
  std::map<int64_t, Bucket> m_buckets;
};

}  // namespace kwb::api
