#pragma once
// The candidates table and its satellites (stages, results): the durable state of the pipeline.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/candidate_state.hpp"
#include "store/database.hpp"

namespace kwb::store {

struct CandidateRecord {
  std::string id;
  int64_t seq = 0;
  std::optional<int64_t> token_id;
  std::string op, variant, backend;
  std::string source_sha256, source_name;
  std::vector<std::string> flags;
  std::vector<std::string> bench;  // bench workloads to time; empty: every one
  bool profile = false;            // "profile": true in the submission (verdict.profile says what came of it)
  std::string note;
  // The device class asked for ("" = any; docs/fleet.md "Device classes"); on the Slurm executor
  // a candidate that asked for none gets the class of the node that evaluated it.
  std::string device_class;
  // Not stored: the spec version to evaluate under (0: the op's current version when the
  // evaluation starts). The decide stage pins library kernels to the candidate's version.
  int spec_version = 0;
  std::optional<std::string> parent, idempotency_key;
  core::CandidateState state = core::CandidateState::queued;
  bool cancel_requested = false;
  int attempts = 0;
  std::optional<std::string> status;
  nlohmann::json verdict;  // null until done
  // The decision part (docs/library.md "Verdict first, decision second"): pending while the
  // comparison with the incumbent runs after the verdict; `comparison` holds it once done.
  core::ComparisonState comparison_state = core::ComparisonState::none;
  nlohmann::json comparison;  // null until done
  int comparison_attempts = 0;
  std::string created_at, updated_at;
  std::optional<std::string> finished_at;
};

struct CandidateFilter {
  std::optional<std::string> op, state, status;  // state: core::state_name
  std::optional<std::string> source_sha256;  // candidates with this exact source
  std::optional<int64_t> token_id;  // the submitting token; 0: none (--no-auth)
  std::optional<std::string> device_class;
  std::optional<int64_t> before_seq;  // pagination: newest first, strictly older than this
  int limit = 50;
};

// Events written in the same transaction as the change they announce (kind, data): a crash can
// never leave a verdict without its terminal events, or the events without the verdict.
using Events = std::vector<std::pair<std::string, nlohmann::json>>;

class CandidateRepository {
 public:
  explicit CandidateRepository(Database& db) : m_db(db) {}

  // Inserts a new queued candidate (id and seq assigned here); returns once the row is committed
  // (on a full disk, after the daemon's caches were evicted and the insert tried again). When the token already submitted
  // the same idempotency key, returns that candidate instead with `*existing = true`.
  util::Result<CandidateRecord> insert(CandidateRecord rec, bool* existing);
  util::Result<std::optional<CandidateRecord>> find(const std::string& id);
  // The candidate a token submitted with this Idempotency-Key, if any.
  util::Result<std::optional<CandidateRecord>> find_by_idempotency_key(std::optional<int64_t> token_id,
                                                                       const std::string& key);
  util::Result<std::vector<CandidateRecord>> list(const CandidateFilter& f);
  // Moves the candidate from `from` to `to` (compare and set: the ledger checked the transition
  // is legal, core/candidate_state.hpp); false when it was not in `from`.
  util::Result<bool> set_state(const std::string& id, core::CandidateState from, core::CandidateState to);
  // Starts an attempt: state analyzing, attempts + 1; returns the attempt number (0 = terminal).
  util::Result<int> begin_attempt(const std::string& id);
  // Writes the verdict, its per-workload results and state done in one transaction, exactly
  // once: false when the candidate was already done or cancelled. `comparison`: pending when the
  // comparison with the incumbent follows (decide() writes it), else none or done (a verdict
  // that carries its comparison already, as a Slurm worker's does).
  util::Result<bool> finish(const std::string& id, const nlohmann::json& verdict,
                            core::ComparisonState comparison = core::ComparisonState::none, const Events& events = {});
  // Writes the decision part once: the comparison (JSON), the verdict with the comparison's
  // fields (its status and measurements unchanged: the caller merged them) and its per-workload
  // results, in one transaction; false when the comparison was not pending.
  util::Result<bool> decide(const std::string& id, const nlohmann::json& verdict, const nlohmann::json& comparison,
                            const Events& events = {});
  // A comparison starts: comparison_attempts + 1; returns it (0: none is pending).
  util::Result<int> begin_comparison(const std::string& id);
  // Done candidates whose comparison is pending, oldest first (start-up recovery).
  util::Result<std::vector<CandidateRecord>> pending_comparisons();
  // Queued: cancelled at once (returns cancelled, *cancelled_now = true); in flight: flagged
  // (returns the state); terminal: unchanged (returns the state).
  // `events`: written with a cancellation of a queued candidate.
  util::Result<core::CandidateState> cancel(const std::string& id, bool* cancelled_now = nullptr,
                                            const Events& events = {});
  util::Result<bool> mark_cancelled(const std::string& id, const Events& events = {});  // in-flight candidate stopped
  util::Result<void> record_stage(const std::string& id, int attempt, const std::string& stage, double ms,
                                  const std::string& detail);
  // Candidates not yet done or cancelled, oldest first (start-up recovery and the queue).
  util::Result<std::vector<CandidateRecord>> unfinished();
  util::Result<int64_t> count_active(std::optional<int64_t> token_id);
  // Accepted candidates without a review decision whose comparison is not pending, oldest first
  // (kwb ci promote's queue).
  util::Result<std::vector<CandidateRecord>> accepted_undecided(int limit);
  // Sets the device class of a candidate that has none (the class its evaluation ran on).
  util::Result<void> settle_device_class(const std::string& id, const std::string& device_class);

 private:
  util::Result<CandidateRecord> insert_once(CandidateRecord rec, bool* existing);
  Database& m_db;
};

}  // namespace kwb::store
