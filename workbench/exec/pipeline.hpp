#pragma once
// The daemon's durable pipeline (DESIGN §3 exec): queued -> analyzing -> compiling ->
// validating -> benchmarking -> deciding -> done | cancelled, with every transition in SQLite.
//  - a compile pool (one thread per core by default) runs analyze + compile, taking candidates
//    from a FairQueue (round-robin across tokens);
//  - one lane per device (the CPU counts as one device) runs validate + benchmark + decide, one
//    candidate at a time: the device's exclusive benchmark slot. Lanes of one device class (the
//    GPUs of one model, PipelineConfig::lanes) share one queue: a candidate waits for the class
//    and the first free lane takes it and binds it to its GPU (docs/architecture.md "Lanes");
//  - at start-up every candidate not done or cancelled is queued again: a candidate caught
//    mid-stage by a crash is re-run from the start; its verdict is written exactly once. One
//    whose evaluation was interrupted max_attempts times gets an `error` verdict instead of
//    another run (a candidate that kills the daemon cannot do so on every restart);
//  - an exception out of a stage (the evaluation, the judge, the store) becomes an `error`
//    verdict for that candidate; the worker and the lane carry on;
//  - a verdict that cannot be written (full disk, locked database) is kept and written again
//    every retry_interval until it is stored (or the daemon stops: then the candidate is still
//    unfinished in the store and is evaluated again at the next start).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "eval/device_lane.hpp"
#include "eval/evaluation.hpp"
#include "exec/event_hub.hpp"
#include "exec/executor.hpp"
#include "exec/fair_queue.hpp"
#include "store/candidate_repository.hpp"
#include "store/event_repository.hpp"
#include "store/object_store.hpp"

namespace kwb::exec {

using EvaluationFactory = std::function<util::Result<std::unique_ptr<eval::Evaluation>>(
    const store::CandidateRecord& rec, const std::string& source, eval::ProgressFn progress)>;

// Runs in the device lane inside the decide stage, after the evaluation's own decision and
// before the stage's end event and the stored verdict: the comparison with the library's
// incumbent (library::Referee), which times the incumbent against the still open evaluation on
// the same device. Its progress goes through evaluation.report() as notes.
using JudgeFn = std::function<void(const store::CandidateRecord& rec, const std::string& source, core::Verdict& v,
                                   eval::Evaluation& evaluation)>;
// After the judge, before the verdict is stored, for every verdict of a device stage, local or
// an executor's (a Slurm worker judged it on its node): the auto-promote policy, which may
// promote the candidate and say so in v.reason.
using PromoteFn = std::function<void(const store::CandidateRecord& rec, const std::string& source, core::Verdict& v)>;

// A GPU's lane: the evaluations whose device_key() is `queue` (its device class) are shared by
// every lane of that queue; the lane binds each to `device` before validating it.
// Up to `depth` candidates are on the lane at once (docs/architecture.md "Sharing a GPU"):
// evaluations that share_device() run side by side, each device command alone on the GPU (its
// gate), so one candidate's trusted CPU work overlaps another's GPU work; any other evaluation
// has the lane to itself.
struct LaneConfig {
  std::string queue;
  std::shared_ptr<const eval::DeviceLane> device;
  int depth = 1;
};

struct PipelineConfig {
  int compile_workers = 2;
  int compiled_backlog = 4;  // compiled candidates waiting for a device slot, at most
  JudgeFn judge;             // optional
  PromoteFn promote;         // optional
  int max_attempts = 2;      // evaluations interrupted (by a daemon stop) before an error verdict
  std::chrono::milliseconds retry_interval{1000};  // unwritten verdicts
  // Where compiled candidates' device stages run: null = this machine's device lanes (local);
  // else e.g. a Slurm cluster (docs/fleet.md).
  std::shared_ptr<DeviceExecutor> executor;
  // This host's GPU lanes (kwb serve: one per usable GPU). Device keys no lane serves (the CPU,
  // cuda:none) get a lane of their own on first use.
  std::vector<LaneConfig> lanes;
};

struct LaneStats {
  std::string key;        // the lane's device ("cuda:0000:19:00.0", "cpu:...")
  std::string queue;      // the device class it serves
  std::string candidate;  // on the device now (the first of `candidates`); "" when idle
  std::vector<std::string> candidates;  // every candidate on the lane now (up to its depth)
  uint64_t finished = 0;  // candidates it ran
};

struct PipelineStats {
  size_t queued = 0;
  size_t waiting_for_device = 0;
  int compiling = 0;
  int on_device = 0;
  uint64_t finished = 0;
  size_t unwritten_verdicts = 0;  // evaluated, the store refused the write so far: retried
  std::string last_write_error;   // why, while unwritten_verdicts > 0
  std::vector<LaneStats> lanes;   // every lane started so far
};

class Pipeline : private ExecutorHost {
 public:
  Pipeline(store::Database& db, store::ObjectStore& objects, EvaluationFactory factory, EventHub& hub,
           PipelineConfig cfg);
  ~Pipeline();

  // Requeues unfinished candidates and starts the threads.
  util::Result<void> start();
  void stop();
  // A new candidate was inserted (state queued): schedule it.
  void submitted(const store::CandidateRecord& rec);
  // Cancels: a queued candidate at once; an in-flight one after its current stage.
  util::Result<std::string> cancel(const std::string& id);
  PipelineStats stats() const;

 private:
  struct Job {
    store::CandidateRecord rec;
    int attempt = 0;
    std::unique_ptr<eval::Evaluation> evaluation;
  };
  struct Lane;
  struct LaneQueue;

  void compile_worker();
  void lane_worker(Lane& lane, size_t slot);
  // Admission to the lane beside its other slots: sharing evaluations together, any other alone.
  // False when the pipeline stops meanwhile.
  bool enter_lane(Lane& lane, bool share);
  void leave_lane(Lane& lane, bool share);
  void store_artifacts(const std::string& id, const eval::Evaluation& e);  // after compile
  void run_front(const std::string& id);
  void run_device(Job& job, const Lane& lane);
  void set_state(const std::string& id, const std::string& state) override;
  void finish(const std::string& id, const core::Verdict& v) override;
  void mark_cancelled(const std::string& id) override;
  void finish_json(const std::string& id, nlohmann::json verdict) override;
  // Writes a verdict, or keeps it for the retry thread when the store refuses it.
  void store_verdict(const std::string& id, nlohmann::json verdict);
  // PipelineConfig::promote for an executor's accepted verdict (its reason is updated).
  void promote_remote(const std::string& id, nlohmann::json& verdict);
  // Writes a verdict; false (kept for the retry thread) when the store refused it.
  bool write_verdict(const std::string& id, const nlohmann::json& verdict);
  void retry_worker();
  // Runs one stage sequence; an exception becomes an error verdict for `id`.
  void guarded(const std::string& id, const char* where, const std::function<void()>& body);
  void finish_error(const store::CandidateRecord& rec, const std::string& reason) override;
  bool cancelled(const std::string& id) override;
  void event(const std::string& id, const std::string& kind, const nlohmann::json& data) override;
  // The queue for a device key; one with a lane of its own where no configured lane serves it.
  LaneQueue& queue_for(const std::string& key);
  void start_lane(const std::string& key, LaneQueue& queue, std::shared_ptr<const eval::DeviceLane> device,
                  int depth = 1);

  store::Database& m_db;
  store::ObjectStore& m_objects;
  EvaluationFactory m_factory;
  EventHub& m_hub;
  PipelineConfig m_cfg;
  FairQueue m_queue;
  std::vector<std::thread> m_workers;

  mutable std::mutex m_mutex;  // lanes, backlog, cancel set, counters
  std::condition_variable m_backlog_cv;
  std::map<std::string, std::unique_ptr<LaneQueue>> m_queues;  // device key or class -> its jobs
  std::vector<std::unique_ptr<Lane>> m_lanes;
  size_t m_backlog = 0;
  std::set<std::string> m_cancel_requests;
  std::map<std::string, eval::Evaluation*> m_on_device_now;  // cancel() reaches these
  int m_compiling = 0, m_on_device = 0;
  uint64_t m_finished = 0;
  bool m_stopping = false;
  std::map<std::string, nlohmann::json> m_unwritten;  // candidate id -> verdict not yet stored
  std::string m_last_write_error;
  std::condition_variable m_retry_cv;
  std::thread m_retry_thread;
};

}  // namespace kwb::exec
