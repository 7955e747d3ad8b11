#pragma once
// A simulated fleet for the daemon-side load benchmark (bench_fleet_load.cpp; docs/fleet.md
// "Scale"). NOT an executor users can choose: `kwb serve` knows only local and slurm. It stands in
// for N GPUs behind the DeviceExecutor interface, so the daemon's own work — HTTP, the store,
// events, SSE fan-out, exactly-once verdicts — is what is measured:
//  - each of `gpus` simulated devices takes one candidate at a time for `device_time`;
//  - during that time it replays the device-stage events of a recorded real evaluation (state,
//    stage and progress events of validate, benchmark and decide, at their recorded fraction of
//    the evaluation's device time), then stores that evaluation's recorded verdict (the candidate's
//    id put in) through the host, as the Slurm executor stores a worker's result;
//  - recorded runs are used round-robin.
// The front stages (analyze, compile) are simulated by sim_front_factory: their stage events are
// written, nothing is compiled (the real cost of those is in docs/fleet.md "Scale", on paper).
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "exec/executor.hpp"
#include "exec/pipeline.hpp"

namespace kwb::bench {

struct RecordedEvent {
  double at = 0;  // fraction of the device time (0..1)
  std::string kind;
  nlohmann::json data;
};

struct RecordedRun {
  nlohmann::json verdict;  // kwb.verdict.v1
  std::vector<RecordedEvent> device_events;
};

// tests/bench/fleet_recorded.json: {"runs": [{"verdict": {...}, "events": [{"at_ms", "kind", "data"}]}]}
std::vector<RecordedRun> load_recorded_runs(const std::string& file, std::string* error);

struct SimFleetConfig {
  int gpus = 100;
  std::chrono::milliseconds device_time{500};
  std::vector<RecordedRun> runs;
};

class SimulatedExecutor : public exec::DeviceExecutor {
 public:
  explicit SimulatedExecutor(SimFleetConfig cfg) : m_cfg(std::move(cfg)) {}
  ~SimulatedExecutor() override { stop(); }
  std::string name() const override { return "simulated"; }
  util::Result<std::set<std::string>> start(exec::Ledger& ledger, exec::RemoteVerdictFn on_verdict) override;
  void run(const store::CandidateRecord& rec, const std::string& source, int attempt) override;
  void cancel(const std::string&) override {}
  void stop() override;
  size_t in_flight() const override;
  std::vector<exec::DeviceClassInfo> device_classes() const override { return {{"cuda-sm_90", "cuda", "sim"}}; }
  // Candidates that waited for a free simulated GPU (the fleet was the bottleneck).
  uint64_t waited_for_gpu() const { return m_waited; }

 private:
  void gpu_worker();
  void evaluate(const store::CandidateRecord& rec);

  SimFleetConfig m_cfg;
  exec::Ledger* m_ledger = nullptr;
  mutable std::mutex m_mutex;
  std::condition_variable m_cv;
  std::deque<store::CandidateRecord> m_queue;
  size_t m_busy = 0;
  uint64_t m_next_run = 0, m_waited = 0;
  bool m_stopping = false;
  std::vector<std::thread> m_gpus;
};

// Evaluations whose analyze and compile stages only report their stage events and succeed.
exec::EvaluationFactory sim_front_factory();

}  // namespace kwb::bench
