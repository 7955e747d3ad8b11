#pragma once
// The fleet_jobs table: which scheduler job (Slurm) runs a candidate's device stages now
// (docs/fleet.md). A row exists from just before the submission until the verdict is stored or
// the candidate is cancelled; a restarted daemon re-attaches to the jobs these rows name.
#include <optional>
#include <string>
#include <vector>

#include "store/database.hpp"

namespace kwb::store {

struct FleetJob {
  std::string candidate_id;
  std::string executor;  // "slurm"
  std::string job_id;    // "" while being submitted
  int tries = 1;         // submissions for this attempt (a lost or failed job is submitted again)
  int attempt = 0;       // the candidate's attempt (candidates.attempts) the job runs
  std::string submitted_at;
};

class FleetJobRepository {
 public:
  explicit FleetJobRepository(Database& db) : m_db(db) {}
  util::Result<void> put(const FleetJob& job);  // insert or replace
  util::Result<std::optional<FleetJob>> find(const std::string& candidate_id);
  util::Result<std::vector<FleetJob>> all(const std::string& executor);
  util::Result<void> remove(const std::string& candidate_id);

 private:
  Database& m_db;
};

}  // namespace kwb::store
