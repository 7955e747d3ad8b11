#pragma once
// Bearer-token authentication with roles (agent < reviewer < admin) and a per-token rate limit.
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "store/database.hpp"

namespace kwb::api {

enum class Role { agent = 0, reviewer = 1, admin = 2 };
std::optional<Role> parse_role(const std::string& s);
std::string_view role_name(Role r);

struct Principal {
  int64_t token_id = 0;  // 0: anonymous (--no-auth)
  std::string name;
  Role role = Role::agent;
};

class Authenticator {
 public:
  Authenticator(store::Database& db, bool enabled) : m_db(db), m_enabled(enabled) {}
  bool enabled() const { return m_enabled; }
  // The principal for an Authorization header value ("Bearer kwb_..."), or nullopt when it is
  // missing or unknown. With auth disabled every request is an anonymous admin.
  std::optional<Principal> authenticate(const std::string& authorization_header);
  void forget_all();  // after a revocation

 private:
  store::Database& m_db;
  bool m_enabled;
  std::mutex m_mutex;
  std::map<std::string, Principal> m_cache;  // by sha256 of the token
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
