#pragma once
#include <nlohmann/json.hpp>

#include "store/candidate_repository.hpp"

namespace kwb::api {
// The API's view of a candidate (GET /v1/candidates/{id}); the verdict only when asked.
nlohmann::json candidate_json(const store::CandidateRecord& rec, bool with_verdict);
nlohmann::json candidate_links(const std::string& id);
}  // namespace kwb::api
