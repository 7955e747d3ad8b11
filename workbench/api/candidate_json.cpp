#include "api/candidate_json.hpp"

#include "store/decision_repository.hpp"
#include "store/event_repository.hpp"

namespace kwb::api {

nlohmann::json candidate_links(const std::string& id) {
  std::string self = "/v1/candidates/" + id;
  return {{"self", self}, {"events", self + "/events"}, {"cancel", self + "/cancel"}, {"profile", self + "/profile"}};
}

nlohmann::json candidate_json(const store::CandidateRecord& r, bool with_verdict) {
  nlohmann::json j = {{"id", r.id},
                      {"op", r.op},
                      {"variant", r.variant},
                      {"backend", r.backend},
                      {"state", std::string(core::state_name(r.state))},
                      {"status", r.status ? nlohmann::json(*r.status) : nlohmann::json(nullptr)},
                      {"source_name", r.source_name},
                      {"source_sha256", r.source_sha256},
                      {"flags", r.flags},
                      {"bench", r.bench},
                      {"device_class", r.device_class.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.device_class)},
                      {"profile", r.profile},
                      {"note", r.note},
                      {"parent", r.parent ? nlohmann::json(*r.parent) : nlohmann::json(nullptr)},
                      {"attempts", r.attempts},
                      {"cancel_requested", r.cancel_requested},
                      {"created_at", r.created_at},
                      {"updated_at", r.updated_at},
                      {"finished_at", r.finished_at ? nlohmann::json(*r.finished_at) : nlohmann::json(nullptr)},
                      {"links", candidate_links(r.id)}};
  // The decision part (docs/library.md "Verdict first, decision second"): its state always, its
  // fields once done (they are in the verdict too).
  nlohmann::json comparison = {{"state", std::string(core::comparison_state_name(r.comparison_state))}};
  if (with_verdict && r.comparison.is_object())
    for (const auto& [k, v] : r.comparison.items())
      if (k != "state") comparison[k] = v;
  j["comparison"] = comparison;
  if (with_verdict) j["verdict"] = r.verdict;
  return j;
}

util::Result<void> add_outcomes(store::Database& db, const std::string& id, nlohmann::json& candidate) {
  auto d = store::DecisionRepository(db).find(id);
  if (!d) return std::unexpected(d.error());
  candidate["decision"] = nullptr;
  if (*d)
    candidate["decision"] = {{"decision", (*d)->decision},
                             {"reason", (*d)->reason},
                             {"commit", (*d)->commit_id.empty() ? nlohmann::json(nullptr) : nlohmann::json((*d)->commit_id)},
                             {"decided_at", (*d)->decided_at}};
  auto ci = store::EventRepository(db).latest(id, "ci");
  if (!ci) return std::unexpected(ci.error());
  candidate["ci"] = nullptr;
  if (*ci) {
    candidate["ci"] = (*ci)->data;
    candidate["ci"]["at"] = (*ci)->at;
  }
  return {};
}

}  // namespace kwb::api
