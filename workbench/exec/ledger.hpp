#pragma once
// The one owner of a candidate's durable life (docs/architecture.md "Life of a candidate"): its
// state and the legal moves between states (core/candidate_state.hpp), its events, cancellation,
// the verdict written exactly once, and the decision (the comparison with the incumbent) written
// exactly once after it. The scheduler (pipeline.hpp), the executors (local lanes, Slurm) and
// the intake (intake.hpp) change a candidate only through here.
//  - Every move is checked against the state the ledger knows; an illegal one is refused and
//    logged (a bug of the caller), never written.
//  - Cancellation is asked in the store (a queued candidate is cancelled at once) and kept in
//    memory, so a stage boundary asks the ledger, not SQLite.
//  - A verdict or decision the store refuses (full disk, locked database) is kept and written
//    again every retry_interval until it is stored; a decision waits for its verdict.
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/candidate_state.hpp"
#include "core/verdict.hpp"
#include "exec/event_hub.hpp"
#include "store/candidate_repository.hpp"
#include "store/database.hpp"

namespace kwb::exec {

struct LedgerConfig {
  std::chrono::milliseconds retry_interval{1000};  // unwritten verdicts and decisions
  int max_attempts = 2;  // evaluations interrupted (by a daemon stop) before an error verdict
};

struct LedgerStats {
  uint64_t finished = 0;          // verdicts written by this ledger
  size_t unwritten = 0;           // verdicts and decisions the store refused so far: retried
  std::string last_write_error;   // why, while unwritten > 0
};

// What start-up recovery found to run again.
struct Recovery {
  std::vector<store::CandidateRecord> evaluate;  // not done: evaluated again from the start
  std::vector<store::CandidateRecord> compare;   // done, comparison pending: compared again
};

class Ledger {
 public:
  Ledger(store::Database& db, EventHub& hub, LedgerConfig cfg = {});
  ~Ledger();
  Ledger(const Ledger&) = delete;
  Ledger& operator=(const Ledger&) = delete;

  // Starts and stops the retry thread.
  void start();
  void stop();

  // The intake stored a new candidate (state queued): its first event.
  void submitted(const store::CandidateRecord& rec);
  // At start-up: candidates not done or cancelled, except `attached` (still running on an
  // executor), are queued again (state event with the stage they stopped in), those
  // interrupted max_attempts times get an error verdict instead; done candidates whose
  // comparison is pending are listed to be compared again.
  util::Result<Recovery> recover(const std::set<std::string>& attached);

  // An evaluation attempt starts: state analyzing, attempts + 1; returns the attempt number,
  // 0 when the candidate is terminal.
  util::Result<int> begin_attempt(const std::string& id);
  // Moves the candidate to `to` when the move is legal from the state the ledger knows (the
  // state event carries `detail`'s fields); false when it was refused or the candidate is
  // terminal.
  bool advance(const std::string& id, core::CandidateState to, const nlohmann::json& detail = nlohmann::json::object());
  void event(const std::string& id, const std::string& kind, const nlohmann::json& data);
  // A stage ended (the stages table; the verdict's stage_ms carries the figures).
  void stage_finished(const std::string& id, int attempt, std::string_view stage, const std::string& detail);

  // Asks for cancellation: a queued candidate is cancelled at once; one in flight is flagged
  // and stops at its next stage boundary. Returns the state after the request.
  util::Result<core::CandidateState> request_cancel(const std::string& id);
  bool cancel_requested(const std::string& id) const;
  // The candidate stopped because it was cancelled: state cancelled, no verdict.
  void mark_cancelled(const std::string& id);

  // The verdict, written once (a second one is ignored). `comparison`: pending when a timed
  // comparison with the incumbent follows (decide() writes it).
  void finish(const std::string& id, const core::Verdict& v,
              core::ComparisonState comparison = core::ComparisonState::none);
  // The same for a verdict in its JSON form, as a remote worker wrote it (its comparison done).
  void finish_json(const std::string& id, nlohmann::json verdict);
  void finish_error(const store::CandidateRecord& rec, const std::string& reason);
  // A comparison of a done candidate starts: its number (0: none pending).
  util::Result<int> begin_comparison(const std::string& id);
  // The decision: `judged` is the stored verdict with the comparison's fields filled in (its
  // status and measurements as stored). Written once, after the verdict.
  void decide(const std::string& id, const core::Verdict& judged);

  LedgerStats stats() const;

 private:
  struct Live {
    core::CandidateState state = core::CandidateState::queued;
    bool cancel = false;
    bool profile = false;
  };
  struct Unwritten {
    nlohmann::json verdict;
    core::ComparisonState comparison = core::ComparisonState::none;
    nlohmann::json decision;  // non-null: a decision (written after its verdict)
  };
  // The ledger's view of a candidate, read from the store when it has none (another process
  // inserted it, or the daemon restarted).
  std::optional<Live> live(const std::string& id);
  void store_verdict(const std::string& id, nlohmann::json verdict, core::ComparisonState comparison);
  bool write(const std::string& id, const Unwritten& u);  // false: kept for the retry thread
  void keep(const std::string& id, Unwritten u);
  void retry_worker();

  store::Database& m_db;
  EventHub& m_hub;
  LedgerConfig m_cfg;
  mutable std::mutex m_mutex;
  std::map<std::string, Live> m_live;  // candidates not terminal, and done ones awaiting a decision
  std::map<std::string, Unwritten> m_unwritten_verdicts, m_unwritten_decisions;
  std::string m_last_write_error;
  uint64_t m_finished = 0;
  bool m_stopping = false;
  std::condition_variable m_retry_cv;
  std::thread m_retry_thread;
};

}  // namespace kwb::exec
