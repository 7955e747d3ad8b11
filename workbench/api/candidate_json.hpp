#pragma once
#include <nlohmann/json.hpp>

#include "store/candidate_repository.hpp"

namespace kwb::api {
// The API's view of a candidate (GET /v1/candidates/{id}); the verdict only when asked.
nlohmann::json candidate_json(const store::CandidateRecord& rec, bool with_verdict);
nlohmann::json candidate_links(const std::string& id);
// What happened to it after its verdict, from the store: "decision" (a reviewer's or CI's:
// {decision, reason, commit, decided_at}) and "ci" (the last `kwb ci promote` outcome:
// {outcome, reason, commit, at}), each null when there is none.
util::Result<void> add_outcomes(store::Database& db, const std::string& id, nlohmann::json& candidate);
}  // namespace kwb::api
