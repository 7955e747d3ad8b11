#pragma once
// The library's review surface, shared by the HTTP routes, the CLI and `kwb ci promote`:
// promote / reject a candidate, its diff against the incumbent, the leaderboard of an op and
// the library's contents. Results are JSON bodies with an outcome code the API maps to a status.
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/candidate.hpp"
#include "core/verdict.hpp"

#include "library/repository.hpp"
#include "spec/loader.hpp"
#include "store/candidate_repository.hpp"
#include "store/database.hpp"
#include "store/leaderboard_query.hpp"
#include "store/object_store.hpp"

namespace kwb::library {

struct Outcome {
  enum class Code { ok, not_found, bad_request, refused, conflict, internal } code = Code::ok;
  std::string message;  // for every code but ok
  nlohmann::json body;  // for ok
};

class Curator {
 public:
  Curator(store::Database& db, store::ObjectStore& objects, Repository& repo, const spec::Catalog& catalog)
      : m_db(db), m_objects(objects), m_repo(repo), m_catalog(catalog) {}
  Repository& repository() { return m_repo; }

  // One commit making the candidate the incumbent (promotion.hpp); refused unless it is done,
  // accepted and beats the incumbent it was compared with; a conflict when that incumbent
  // changed meanwhile or the candidate was already decided.
  Outcome promote(const std::string& id, const std::string& reviewer, std::optional<int64_t> token_id);
  // The same for a verdict not stored yet (auto-promotion in the pipeline's decide stage, so the
  // decision exists before the verdict is visible). The candidate row must exist.
  // device_class: the class the candidate recorded (a Slurm node's), as a review's promotion uses.
  Outcome promote_evaluated(const core::Candidate& cand, const core::Verdict& verdict, const std::string& reviewer,
                            const std::string& device_class = "");
  Outcome reject(const std::string& id, const std::string& reason, std::optional<int64_t> token_id);
  // Unified diff against the incumbent of the same op/variant/backend, with the per-workload table.
  Outcome diff(const std::string& id);
  // Accepted candidates of an op, fastest against the incumbent first (or newest first), with
  // their decisions, the evidence per workload (evidence.hpp), author and bench subset; each row
  // names the best row of the same source (same_source_as). One page of it (`q.op` is `op`):
  // ranked in SQL, so a page costs the same however many candidates the store holds.
  Outcome leaderboard(const std::string& op, store::LeaderboardQuery q);
  // The winners waiting for a decision across ops (or one op), oldest first: accepted, beating
  // the incumbent they were compared with, neither promoted nor rejected.
  Outcome pending_review(const std::optional<std::string>& op, int limit);
  // dispatch.json's entries (all, or one op's) and the op's library history.
  Outcome library(const std::string& op);

 private:
  store::Database& m_db;
  store::ObjectStore& m_objects;
  Repository& m_repo;
  const spec::Catalog& m_catalog;
  // device_class: the candidate's recorded class ("" where it has none; library::device_class).
  Outcome promote_locked(const core::Candidate& cand, const core::Verdict& verdict, const std::string& reviewer,
                         std::optional<int64_t> token_id, const std::string& device_class = "");
  std::mutex m_decide;  // one promotion or rejection at a time in this process
};

}  // namespace kwb::library
