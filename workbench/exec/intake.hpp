#pragma once
// The one way in for a candidate (docs/architecture.md "Life of a candidate"): a submission or a
// profile re-run is checked (submission.hpp), its Idempotency-Key honoured, the token's quota
// applied, its source stored, its row inserted, announced by the ledger and scheduled. The HTTP
// routes and the MCP tools are thin adapters over it (api/routes_candidates.cpp).
#include <expected>
#include <functional>
#include <optional>
#include <string>

#include "core/candidate.hpp"
#include "exec/ledger.hpp"
#include "exec/refusal.hpp"
#include "exec/submission.hpp"
#include "spec/loader.hpp"
#include "store/database.hpp"
#include "store/object_store.hpp"

namespace kwb::exec {

struct IntakeConfig {
  SubmissionRules rules;
  int64_t queue_quota = 64;  // candidates queued or in flight per token
};

// What the caller learns of an accepted request.
struct Receipt {
  std::string id;
  core::CandidateState state = core::CandidateState::queued;
  bool replay = false;  // an Idempotency-Key seen before: its candidate, nothing new
  std::optional<std::string> parent;  // a profile re-run: the candidate profiled
};

class Intake {
 public:
  // `schedule`: hands a stored, announced candidate to the scheduler (Pipeline::schedule).
  Intake(store::Database& db, store::ObjectStore& objects, const spec::Catalog& catalog, Ledger& ledger,
         std::function<void(const store::CandidateRecord&)> schedule, IntakeConfig cfg);

  // A submit body from `token_id` (0: none, --no-auth), with its Idempotency-Key if any: a key
  // seen with the same body answers with its candidate (replay); with another body it is refused.
  std::expected<Receipt, Refusal> submit(int64_t token_id, const std::string& body,
                                         const std::optional<std::string>& idempotency_key);
  // The candidate `id` again as a new candidate of `token_id` with "profile": true and parent
  // `id` (docs/api.md "Profiles"), its bench selection and device class kept, under the same quota.
  std::expected<Receipt, Refusal> profile(int64_t token_id, const std::string& id);

  // A library kernel evaluated again as a candidate of `token_id` (`kwb retime`, POST
  // /v1/library/{op}/retime): its source stored and its row queued like a submission's (no quota:
  // a reviewer's request over the library's own kernels).
  std::expected<Receipt, Refusal> library_kernel(int64_t token_id, const core::Candidate& kernel);

  const IntakeConfig& config() const { return m_cfg; }

 private:
  std::optional<Refusal> check_quota(int64_t token_id);
  // Stores the row, announces and schedules it; a replay when a concurrent request won the key.
  std::expected<Receipt, Refusal> admit(store::CandidateRecord rec);

  store::Database& m_db;
  store::ObjectStore& m_objects;
  const spec::Catalog& m_catalog;
  Ledger& m_ledger;
  std::function<void(const store::CandidateRecord&)> m_schedule;
  IntakeConfig m_cfg;
};

}  // namespace kwb::exec
