#pragma once
// One candidate's evaluation as a sequence of stages (docs/architecture.md "Life of a candidate in
// the daemon": analyze -> compile -> validate -> benchmark -> decide). Each backend (cpu now; cuda,
// cuda-launcher later) implements it, so `kwb eval` runs the stages back to back and the daemon can
// run compile on its compile pool and validate + benchmark in the device's exclusive benchmark
// slot.
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/candidate.hpp"
#include "core/reference.hpp"
#include "core/spec.hpp"
#include "core/verdict.hpp"
#include "eval/options.hpp"
#include "eval/timing_subject.hpp"

namespace kwb::eval {

struct DeviceLane;  // device_lane.hpp
class BenchTimer;   // bench_timer.hpp

enum class Stage { analyze, compile, validate, benchmark, decide };
std::string_view stage_name(Stage s);

// Where a validate or benchmark stage is: the workload it works on, and timing samples so far.
struct WorkloadProgress {
  std::string workload;  // its name
  std::string kind;      // "test" | "bench"
  std::map<std::string, int64_t> params;
  std::string config;    // cuda tunables ("BLOCK=256"), "" when the plan has none
  size_t samples = 0;    // timing samples so far (benchmark; 0 when the workload starts)
  size_t index = 0, count = 0;  // its 1-based position among the stage's workloads (per config)
};

// Progress for a live view (CLI lines, SSE events): a stage started or finished, or (with
// `workload`, or as a `note`) where a running stage is. Each stage reports its start once and
// its end at most once, after everything it did (a failing stage ends with the verdict instead).
struct StageEvent {
  Stage stage;
  bool finished = false;
  std::string detail;  // e.g. "g++ 12.2.0, 412 ms" or "workload 17x33 ok"
  std::optional<WorkloadProgress> workload = std::nullopt;
  // Progress of the running stage told in `detail` (the decide stage's comparison with the
  // incumbent: "preparing the incumbent ...", a workload's ratio so far): neither start nor end.
  bool note = false;
};

// A progress event of a running validate/benchmark stage.
StageEvent workload_progress(Stage stage, const core::Workload& w, bool bench, std::string config, size_t samples,
                             size_t index, size_t count);
using ProgressFn = std::function<void(const StageEvent&)>;

// A candidate's StageEvents as the events of its stream (docs/api.md "Events"): ("stage", data)
// for a start or an end, ("progress", data) for a workload's start, its sample count, or a note
// of the running stage; nothing for a sample count within 250 ms of the last one (a workload's
// start always goes). The daemon's lanes and `kwb worker` (relayed from Slurm) both shape them.
class StageEventShaper {
 public:
  std::optional<std::pair<std::string, nlohmann::json>> operator()(const StageEvent& e);

 private:
  std::chrono::steady_clock::time_point m_last_samples{};
};

// A compiled form of the candidate kept with it (GET /v1/candidates/{id}/artifacts/{kind}):
// the PTX, cubin and SASS of each config of a cuda-form candidate.
struct Artifact {
  std::string kind;    // "ptx" | "cubin" | "sass"
  std::string config;  // TuneConfig::label()
  std::string data;
};

class Evaluation {
 public:
  virtual ~Evaluation() = default;
  // Every stage returns false when the verdict is already decided (the remaining stages are
  // skipped). None throws for anything the candidate does.
  virtual bool analyze() = 0;
  virtual bool compile() = 0;
  virtual bool validate() = 0;
  virtual bool benchmark() = 0;
  // The evaluation's own part of the decide stage (the verdict from its results). The stage's
  // start and end events are decide_stage()'s: what follows (the comparison with baselines and
  // the incumbent) belongs to the same stage.
  virtual bool decide() = 0;
  // The verdict so far (final after decide() or after a stage returned false).
  virtual core::Verdict verdict() = 0;
  // The queue of device slots validate() and benchmark() wait for: the device's key, or for
  // CUDA the device class (any GPU of that model will do; docs/architecture.md "Lanes").
  virtual std::string device_key() const = 0;
  // The lane that took the evaluation, before validate(): its device becomes the evaluation's
  // (a no-op where the evaluation is on that device already, or has no device to choose).
  virtual void bind_lane(const DeviceLane& lane) { (void)lane; }
  // Whether the lane may run another sharing evaluation beside this one (docs/architecture.md
  // "Sharing a GPU"): true only where every device command goes through the GPU's gate
  // (eval/device_gate.hpp) and nothing of the candidate runs between commands. False (the
  // default): the lane is this evaluation's alone (CPU timing, whose samples the trusted side's
  // CPU work would disturb; a cuda-launcher, whose host code runs in its runner).
  virtual bool shares_device() const { return false; }
  // The device the evaluation runs on once bound: the GPU's lane key ("cuda:<bus id>") for a
  // CUDA evaluation on one GPU, else device_key() (warm incumbents are kept per device).
  virtual std::string bound_device() const { return device_key(); }
  // The same device as `other` (an incumbent or baseline timed beside a candidate in its lane).
  virtual void bind_like(const Evaluation& other) { (void)other; }
  // From another thread: stop the running stage as soon as possible (kills the sandboxed
  // process); the stage then returns false and the caller records the cancellation.
  virtual void cancel() {}
  // After an accepted benchmark stage: the evaluation's runner, still open, as one side of an
  // interleaved comparison (paired_timing.hpp); null when this evaluation cannot time more.
  // The subject lives no longer than the evaluation.
  virtual std::unique_ptr<TimingSubject> timing_subject(const std::string& who) {
    (void)who;
    return nullptr;
  }
  // Before benchmark(): how its bench workloads are timed (bench_timer.hpp: one pass, the
  // candidate interleaved with the incumbent); none set: alone.
  virtual void set_bench_timer(std::shared_ptr<BenchTimer> timer) { (void)timer; }
  // Bench workload -> the params (spec params and tunables) it was last timed with (its tuning
  // records): a timing subject of an evaluation that did not time that workload itself uses the
  // tunable config those params name (CUDA), so an incumbent is compared at its best config.
  virtual void prefer_configs(const std::map<std::string, std::map<std::string, int64_t>>& params_by_workload) {
    (void)params_by_workload;
  }
  // The spec and variant the evaluation judged against (variant: null before analyze()).
  virtual const core::Spec* spec() const { return nullptr; }
  virtual const core::Variant* variant() const { return nullptr; }
  // Reports progress through the evaluation's own progress callback (the decide stage's
  // comparison, which runs outside the evaluation, uses it).
  virtual void report(const StageEvent& e) { (void)e; }
  // After compile(): what to store with the candidate; their sha256 are in the verdict's
  // compiler_facts (the object store is content-addressed).
  virtual std::vector<Artifact> artifacts() const { return {}; }
  // Before a promotion (the decide stage, once the decision says promotable): the candidate under
  // the backend's sanitizers on its test workloads (CUDA: docs/profiles.md "Clean before
  // promotion"). None: this backend has no such pass.
  virtual std::optional<core::SanitizerOutcome> sanitize_for_promotion() { return std::nullopt; }
};

// What runs in the decide stage after the evaluation's own decision: the comparison with the
// vendor baselines and the library's incumbent, promotion (it may amend the verdict).
using Judge = std::function<void(core::Verdict&)>;

// The decide stage, after benchmark(): its start event, decide(), `judge` (when set), then its
// end event with the final status, so a comparison's progress notes come between the two.
core::Verdict decide_stage(Evaluation& e, const Judge& judge = {});

// Runs every stage in order and returns the verdict (what `kwb eval` does), `judge` inside the
// decide stage.
core::Verdict run_to_verdict(Evaluation& e, const Judge& judge = {});

}  // namespace kwb::eval
