#pragma once
// Who may do what beyond the role table: the check before a request body is read, and the
// owner rule for writes on one candidate.
#include <optional>
#include <string>

#include "api/auth.hpp"
#include "api/request_head.hpp"
#include "store/candidate_repository.hpp"

namespace kwb::api {

// Run by the connection gate before it reads a request body: with auth on, a body is read only
// for a request that carries a live token (401 / 429 too_many_failed_logins otherwise).
std::optional<Refusal> preflight_auth(Authenticator& auth, const RequestHead& head, const std::string& address);

// Cancel and every other write on one candidate: its owner (the token that submitted it), a
// reviewer or an admin. A candidate submitted without a token (--no-auth) has no owner.
bool may_write(const Principal& who, const store::CandidateRecord& rec);
std::string not_yours(const Principal& who, const store::CandidateRecord& rec, const std::string& action);

}  // namespace kwb::api
