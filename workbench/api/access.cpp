#include "api/access.hpp"

#include "api/http_util.hpp"

namespace kwb::api {

std::optional<Refusal> preflight_auth(Authenticator& auth, const RequestHead& head, const std::string& address) {
  auto checked = auth.check(head.authorization, address);
  if (checked.failure) return refusal_of(*checked.failure);  // busy 503, storage_full 507, as every route
  if (checked.retry_after_s > 0)
    return Refusal{429, "too_many_failed_logins",
                   "too many requests with an unknown or revoked token from " + address + "; retry after " +
                       std::to_string(checked.retry_after_s) + " s",
                   {{"Retry-After", std::to_string(checked.retry_after_s)}}};
  if (checked.who) return std::nullopt;
  return Refusal{401, "unauthorized",
                 unauthorized_message(head.authorization, /*body=*/true, auth.workspace()),
                 {{"WWW-Authenticate", "Bearer"}}};
}

bool may_write(const Principal& who, const store::CandidateRecord& rec) {
  if (who.role >= Role::reviewer) return true;
  return rec.token_id && who.token_id != 0 && *rec.token_id == who.token_id;
}

std::string not_yours(const Principal& who, const store::CandidateRecord& rec, const std::string& action) {
  return "candidate " + rec.id + " was submitted by another token; only its owner, a reviewer or an admin may " +
         action + " it (this token: " + who.name + ", role " + std::string(role_name(who.role)) + ")";
}

}  // namespace kwb::api
