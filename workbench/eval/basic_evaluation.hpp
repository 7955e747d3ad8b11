#pragma once
// What the CPU and the CUDA evaluations share (cpu_evaluation.hpp, cuda_evaluation.hpp): the
// spec, candidate, reference, seeds and verdict of one evaluation; the failure helpers that decide
// the verdict; the analyze stage's common steps (the variant, the drawn test workloads, the
// reference, static analysis folded into the verdict); what a toolchain's run leaves in it; the
// accepted verdict's wording; and the timing subject the decide stage may ask for. A backend adds
// its device, toolchain, runner session and the stages themselves.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/backend.hpp"
#include "core/candidate.hpp"
#include "core/spec.hpp"
#include "core/verdict.hpp"
#include "eval/arena.hpp"
#include "eval/bench_timer.hpp"
#include "eval/benchmark.hpp"
#include "eval/evaluation.hpp"
#include "eval/harness.hpp"
#include "eval/reference.hpp"
#include "eval/runner_client.hpp"
#include "eval/seeds.hpp"
#include "eval/timing_subject.hpp"

namespace kwb::analysis {
struct Request;
}

namespace kwb::eval {

struct AnalysisOutcome;  // analysis_outcome.hpp

class BasicEvaluation : public Evaluation {
 public:
  bool decide() override;
  core::Verdict verdict() override;
  std::unique_ptr<TimingSubject> timing_subject(const std::string& who) override;
  void set_bench_timer(std::shared_ptr<BenchTimer> timer) override { m_bench_timer = std::move(timer); }
  const core::Spec* spec() const override { return &m_spec; }
  const core::Variant* variant() const override { return m_variant; }
  void report(const StageEvent& e) override;

 protected:
  // `backend` names it in the verdict (and selects the workloads that run on it); the backend
  // sets the verdict's device.
  BasicEvaluation(const core::Spec& spec, ReferenceOpener reference, core::Candidate cand, EvalOptions opt,
                  ProgressFn progress, core::Backend backend);

  // The verdict decided: `s` for `reason`. Returns false, what a stage returns then.
  bool fail(core::Status s, std::string reason);
  // A failed check or runner command, as classify() reads it.
  bool fail_check(const CheckFailure& f);
  // A toolchain that failed in its sandbox: time_limit when it ran out of time, else compile_error.
  bool fail_build(bool timed_out, std::string reason);
  void emit(Stage s, bool finished, std::string detail = {});

  // The analyze stage's steps; each false when the verdict is decided. The variant the candidate
  // implements (`hint` ends the reason when there is none).
  bool resolve_variant(std::string_view hint = {});
  // The spec's test workloads and those drawn for this evaluation.
  bool draw_test_workloads();
  // The spec's reference (stage_ms.reference_open: its build or cache hit and process start).
  bool open_spec_reference();
  // Static analysis of the candidate (docs/analysis.md) folded into the verdict; stage_ms.analyze
  // counts from `stage_start` to the analysis's end. `why_allowed` ends the note where analysis is
  // unavailable.
  AnalysisOutcome analyze_source(analysis::Request request, const std::string& why_allowed,
                                 std::chrono::steady_clock::time_point stage_start);

  // The verdict's toolchain: `identity`, its base flags, then the candidate's flags.
  void record_toolchain(const std::string& identity, const std::vector<std::string>& base_flags = {});
  // The verdict's compile_cache for a compile that hit (or missed) the cache.
  std::string compile_cache_state(bool hit) const;

  // The validate stage's loop: every config on every test workload, under every distribution,
  // each checked twice (determinism). A wrong result does not stop the others (their table helps
  // the author); the reason quotes the largest failing workload, where the pattern of a bug is
  // clearest. Crashes, hangs and sandbox failures stop at once. False when the verdict is decided.
  bool run_tests();
  // Whether `w` runs in this evaluation: on its backend and, for a bench workload, in the
  // evaluation's bench list (EvalOptions::bench) when there is one.
  bool selected(const core::Workload& w, bool bench) const;
  // A new row of the verdict for `w`.
  core::WorkloadResult& add_result(const core::Workload& w, bool bench);

  // Times one bench workload of the benchmark stage: by the bench timer where the judging policy
  // gave one (the candidate interleaved with the incumbent: one pass), else alone (run_benchmark).
  std::optional<CheckFailure> time_workload(const core::Workload& w, WorkloadHarness& h, const BenchmarkConfig& cfg,
                                            const StoppingCriterion& criterion, const std::function<void()>& fresh,
                                            core::TimeStats& out);

  // The tunable configs of the candidate (one where it has none): how many, the label progress
  // events and reasons name ("" where there is only one), and making config `c` the runner's.
  virtual size_t config_count() const { return 1; }
  virtual std::string config_label(size_t c) const {
    (void)c;
    return {};
  }
  virtual bool use_config(size_t c) {  // false: the verdict is decided
    (void)c;
    return true;
  }
  // Sends the runner what `w` needs under config `c` (the launch dimensions of a launch plan).
  virtual bool send_dims(size_t c, const core::Workload& w) {  // false: the verdict is decided
    (void)c;
    (void)w;
    return true;
  }
  // A test workload's harness before it is prepared (GPU: the reference overlaps the device).
  virtual void configure_test_harness(WorkloadHarness& h) { (void)h; }
  // On each input set of the first config, before the candidate runs: a second reference's
  // agreement with the spec's (the spec's GPU reference). False: the verdict is decided.
  virtual bool cross_check_reference(WorkloadHarness& h) {
    (void)h;
    return true;
  }
  // How a failure of this backend's runner reads (kwb-gpu-runner's tags, gpu_failure.hpp).
  virtual CheckFailure classify(const CheckFailure& f) const { return f; }
  // The decide stage's own notes before the verdict is worded (the CPU's busy machine).
  virtual void add_decide_notes() {}
  // Parts of the accepted verdict's reason: after the checks count (", 2 config(s)"), after the
  // workload counts (the bench workloads a GPU reference judged), and the slowest bench workload's
  // median ("1.234 ms").
  virtual std::string checks_note() const { return {}; }
  virtual std::string judged_note() const { return {}; }
  virtual std::string median_text(double median_ns) const = 0;
  // The backend's part of a timing subject's configuration (flush, copies, freeze, setup).
  virtual void configure_timing(TimingSubjectConfig& cfg) = 0;

  const core::Spec& m_spec;
  ReferenceOpener m_open_reference;
  std::shared_ptr<Reference> m_reference;  // opened by analyze()
  core::Candidate m_cand;
  EvalOptions m_opt;
  ProgressFn m_progress;
  const core::Variant* m_variant = nullptr;
  std::vector<core::Workload> m_test_workloads;  // published, then drawn for this evaluation (analyze())
  // The runner session validate() and benchmark() work in (the backend owns it): null until it
  // started.
  SharedArena* m_arena = nullptr;
  RunnerSession* m_runner = nullptr;
  SeedSource m_seeds;
  core::Verdict m_verdict;
  bool m_decided = false;
  std::chrono::steady_clock::time_point m_start;
  std::shared_ptr<BenchTimer> m_bench_timer;  // set_bench_timer(); null: each workload timed alone
  // The first workload a config of the candidate failed on (a crash, a wrong result, a hang):
  // where a backend's tools look for the cause (the CUDA sanitizer pass).
  struct Failing {
    const core::Workload* workload = nullptr;
    size_t config = 0;
    bool bench = false;
  };
  std::optional<Failing> m_first_failing;
  void note_failing(const core::Workload& w, size_t config, bool bench) {
    if (!m_first_failing) m_first_failing = Failing{&w, config, bench};
  }

 private:
  std::unique_ptr<TimingSubject> make_timing_subject(const std::string& who);
};

}  // namespace kwb::eval
