#pragma once
// The text a model reads for a candidate (get_verdict, submit_kernel): status first, then the
// one-line reason, the first mismatch or diagnostic, and the speed-up against the incumbent.
#include <string>

#include <nlohmann/json.hpp>

namespace kwb::mcp {

// `candidate`: GET /v1/candidates/{id} (with its verdict once done).
std::string candidate_text(const nlohmann::json& candidate);
// The compact structured form: id, state, status, reason, first_mismatch, diagnostic,
// speedup_vs_incumbent, promotable, and the full verdict.
nlohmann::json candidate_summary(const nlohmann::json& candidate);

}  // namespace kwb::mcp
