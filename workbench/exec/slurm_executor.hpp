#pragma once
// The Slurm executor (docs/fleet.md): the device stages of each compiled candidate run as one
// Slurm batch job executing `kwb worker`, submitted and watched with the Slurm command-line tools
// (sbatch, squeue, scancel). Job folders live in a directory every node mounts at the same path
// (default <workspace>/fleet): the daemon writes job.json (the candidate) and job.sh there; the
// worker appends its stage events to progress.jsonl and writes result.json (its verdict) once.
//  - the job id is stored (fleet_jobs) before the daemon relies on it: a restarted daemon
//    re-attaches to its jobs instead of running their candidates again;
//  - a job lost to the machine (node failure, preemption with PreemptMode=CANCEL, the worker
//    killed, a job that ended without a result) is submitted again, max_tries per attempt, then
//    an `error` verdict; jobs carry --requeue, so Slurm itself requeues one whose node died;
//  - the Slurm time limit: retried once (a slow or overloaded node), `time_limit` after that;
//  - cancelling a candidate scancels its job.
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "exec/executor.hpp"
#include "store/database.hpp"

namespace kwb::exec {

struct SlurmConfig {
  std::filesystem::path shared_dir;  // job folders; on storage the nodes mount at the same path
  std::string worker;                // the kwb executable on the nodes (same path)
  std::vector<std::pair<std::string, std::string>> worker_env;  // KWB_* the worker reads
  std::string cpu_partition, gpu_partition;  // "": the cluster's default partition
  // Device classes and their partitions (--slurm-device-classes): a candidate that asks for a
  // class goes to its partition; one that asks for none to cpu_partition / gpu_partition.
  std::vector<DeviceClassInfo> device_classes;
  int time_limit_min = 30;
  int max_tries = 3;             // submissions per attempt (machine faults), then an error verdict
  int cpus_per_task = 1;
  bool exclusive_cpu = false;    // --exclusive for cpu candidates (a whole node to time on)
  std::vector<std::string> extra_args;  // more sbatch arguments (--account, --qos, ...)
  std::string bin_dir;           // folder of sbatch, squeue, scancel ("": PATH)
  std::chrono::milliseconds poll{500};
  // Called with each worker verdict just before it is stored (kwb serve: the candidate's tuning
  // records, which the local decide stage keeps in kwb.db).
  std::function<void(const store::CandidateRecord&, const nlohmann::json& verdict)> on_verdict;
};

// The sbatch arguments of a candidate's job (without the script), for tests and docs.
std::vector<std::string> sbatch_arguments(const SlurmConfig& cfg, const std::string& candidate_id,
                                          const std::string& backend, const std::filesystem::path& dir,
                                          const std::string& device_class = "");
// The partition of a candidate's job: its device class's, else the backend's.
std::string slurm_partition_of(const SlurmConfig& cfg, const std::string& backend, const std::string& device_class);
// --slurm-device-classes "CLASS=PARTITION,...": checked classes (library/device_class.hpp syntax is
// checked by the caller), or what is wrong.
util::Result<std::vector<DeviceClassInfo>> parse_slurm_device_classes(const std::string& text);

class SlurmExecutor : public DeviceExecutor {
 public:
  SlurmExecutor(store::Database& db, SlurmConfig cfg);
  ~SlurmExecutor() override;
  std::string name() const override { return "slurm"; }
  util::Result<std::set<std::string>> start(Ledger& ledger, RemoteVerdictFn on_verdict) override;
  void run(const store::CandidateRecord& rec, const std::string& source, int attempt) override;
  void cancel(const std::string& id) override;
  void stop() override;
  size_t in_flight() const override;
  std::vector<DeviceClassInfo> device_classes() const override { return m_cfg.device_classes; }

 private:
  struct Job {
    store::CandidateRecord rec;
    std::string job_id;  // "" until known
    int attempt = 0, tries = 1;
    size_t progress_offset = 0;
    bool running_seen = false;
    std::optional<core::CandidateState> stage_state;  // the candidate state the relayed progress last set
    int64_t submitted_ms = 0;  // wall clock of the last sbatch (0: before a restart)
  };
  struct SlurmState {
    std::string state, reason;
  };

  std::filesystem::path dir_of(const std::string& id) const { return m_cfg.shared_dir / id; }
  std::string tool(const char* name) const;
  // Writes job.json and job.sh, records the job, runs sbatch; false after an error verdict.
  bool submit(Job& job, const std::string& source);
  void monitor();
  void poll_once();
  // squeue: job id -> state, and job name -> id (jobs of this user, finished ones included while
  // the controller keeps them); false when squeue itself failed (nothing is concluded then).
  bool query(std::map<std::string, SlurmState>& by_id, std::map<std::string, std::string>& by_name);
  void relay_progress(Job& job);
  bool take_result(Job& job);  // a result.json of this job: the verdict is stored
  // The node's calibrations in a result (fleet_devices); an error when the node is not of the
  // class the candidate asked for (the partition holds other nodes: a configuration fault).
  std::string keep_node_devices(const Job& job, const nlohmann::json& result);
  void job_ended(Job& job, const SlurmState* st);
  void resubmit(Job& job, const std::string& why);
  void forget(const std::string& id);  // row and folder removed, not watched any more

  store::Database& m_db;
  SlurmConfig m_cfg;
  Ledger* m_ledger = nullptr;
  RemoteVerdictFn m_on_remote_verdict;
  mutable std::mutex m_mutex;
  std::condition_variable m_cv;
  std::map<std::string, Job> m_jobs;  // candidate id -> its job
  bool m_stopping = false;
  std::thread m_thread;
};

}  // namespace kwb::exec
