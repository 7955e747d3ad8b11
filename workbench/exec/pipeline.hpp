#pragma once
// The daemon's scheduler (docs/architecture.md "Life of a candidate"); a candidate's durable life
// is the ledger's (ledger.hpp), which every step here goes through.
//  - a compile pool (one thread per core by default) runs analyze + compile, taking candidates
//    from a FairQueue (round-robin across tokens);
//  - one lane per device (the CPU counts as one device) runs validate + benchmark + decide, one
//    candidate at a time: the device's exclusive benchmark slot. Lanes of one device class (the
//    GPUs of one model, PipelineConfig::lanes) share one queue: a candidate waits for the class
//    and the first free lane takes it and binds it to its GPU (docs/architecture.md "Lanes");
//  - with a judge, the verdict is stored as soon as the candidate's own measurements are, and
//    the timed comparison with the incumbent follows in the same lane, its decision stored after
//    (docs/library.md "Verdict first, decision second");
//  - at start-up the ledger's recovery says what runs again: unfinished candidates from the
//    start, done ones whose comparison was interrupted for the comparison alone;
//  - an exception out of a stage (the evaluation, the judge, the store) becomes an `error`
//    verdict for that candidate (or an undecided comparison); the worker and the lane carry on.
#include <chrono>
#include <condition_variable>
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
#include "exec/executor.hpp"
#include "exec/fair_queue.hpp"
#include "exec/judge.hpp"
#include "exec/ledger.hpp"
#include "store/candidate_repository.hpp"
#include "store/object_store.hpp"

namespace kwb::exec {

using EvaluationFactory = std::function<util::Result<std::unique_ptr<eval::Evaluation>>(
    const store::CandidateRecord& rec, const std::string& source, eval::ProgressFn progress)>;

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
  // The judging policy (baselines, the comparison with the incumbent, auto-promotion); null:
  // verdicts alone, no comparison.
  std::shared_ptr<Judge> judge;
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

class Pipeline {
 public:
  Pipeline(store::Database& db, store::ObjectStore& objects, EvaluationFactory factory, Ledger& ledger,
           PipelineConfig cfg);
  ~Pipeline();

  // Recovers (Ledger::recover), queues what runs again and starts the threads.
  util::Result<void> start();
  void stop();
  // A new candidate the intake stored and the ledger announced (state queued): schedule it.
  void schedule(const store::CandidateRecord& rec);
  // Cancels: a queued candidate at once; an in-flight one after its current stage.
  util::Result<core::CandidateState> cancel(const std::string& id);
  PipelineStats stats() const;

 private:
  struct Job {
    store::CandidateRecord rec;
    int attempt = 0;
    std::unique_ptr<eval::Evaluation> evaluation;
    bool comparison_only = false;  // recovery: the verdict is stored, the comparison runs again
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
  void run_front(const std::string& id, bool comparison_only);
  void run_device(Job& job, const Lane& lane);
  // The verdict, then (`compare`: the judge asked for it) the comparison and its decision.
  void finish_device(Job& job, core::Verdict v, bool compare);
  // A comparison the daemon's stop interrupted: the evaluation again, its verdict not stored.
  void compare_again(Job& job);
  bool stop_if_cancelled(const std::string& id);
  // Runs one stage sequence; an exception becomes an error verdict for `id`.
  void guarded(const std::string& id, const char* where, const std::function<void()>& body);
  // The queue for a device key; one with a lane of its own where no configured lane serves it.
  LaneQueue& queue_for(const std::string& key);
  void start_lane(const std::string& key, LaneQueue& queue, std::shared_ptr<const eval::DeviceLane> device,
                  int depth = 1);

  store::Database& m_db;
  store::ObjectStore& m_objects;
  EvaluationFactory m_factory;
  Ledger& m_ledger;
  PipelineConfig m_cfg;
  FairQueue m_queue;
  std::set<std::string> m_compare_only;  // queued for their comparison alone (recovery)
  std::vector<std::thread> m_workers;

  mutable std::mutex m_mutex;  // lanes, backlog, counters
  std::condition_variable m_backlog_cv;
  std::map<std::string, std::unique_ptr<LaneQueue>> m_queues;  // device key or class -> its jobs
  std::vector<std::unique_ptr<Lane>> m_lanes;
  size_t m_backlog = 0;
  std::map<std::string, eval::Evaluation*> m_on_device_now;  // cancel() reaches these
  int m_compiling = 0, m_on_device = 0;
  bool m_stopping = false;
};

}  // namespace kwb::exec
