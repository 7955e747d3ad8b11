#pragma once
// One pass (docs/library.md "One pass"): the candidate's benchmark stage times each bench
// workload interleaved with the incumbent (a warm evaluation of it, its runner kept open), in
// block pairs on the same inputs (the incumbent adopts the candidate's: generated once). The
// candidate's times in the verdict come from its blocks; the block pairs are the comparison's
// first, kept per workload (PairedSeries) for the comparison that follows the verdict
// (library::Referee::compare), which adds blocks only where the answer is not known yet.
//
// The candidate is held to every rule of run_benchmark: a warm-up, `rerandomised_rounds` rounds
// on fresh inputs each verified after its block, the last timed call verified, its own stopping
// criterion and budget. Phase one also runs on to the sequence's first look (a few block pairs)
// when the budget allows, so that a clear outcome is settled before the verdict. An incumbent
// that fails here is recorded (the comparison then says so) and the candidate is timed alone.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/feedback.hpp"
#include "eval/bench_timer.hpp"
#include "eval/paired_timing.hpp"

namespace kwb::eval {

class PairedBenchmark : public BenchTimer {
 public:
  PairedBenchmark(std::unique_ptr<TimingSubject> incumbent, PairedConfig cfg, PairedRules rules);
  std::optional<CheckFailure> time(const core::Workload& w, TimingSubject& candidate, const BenchmarkConfig& cfg,
                                   const StoppingCriterion& criterion, const std::function<void()>& fresh_inputs,
                                   core::TimeStats& out) override;

  // The series of each workload timed so far (the comparison carries them on).
  std::map<std::string, PairedSeries>& series() { return m_series; }
  // Why the incumbent could not be timed on a workload, if it failed there (its CheckFailure).
  const std::map<std::string, CheckFailure>& incumbent_failures() const { return m_failures; }
  TimingSubject& incumbent() { return *m_incumbent; }
  // Which incumbent this is (its source's sha256: the comparison checks the library has not
  // moved on since).
  void set_incumbent_source(std::string sha256) { m_incumbent_source = std::move(sha256); }
  const std::string& incumbent_source() const { return m_incumbent_source; }
  // The warm incumbent's compiler facts (its verdict's compiler_facts), for the resource diff
  // (core/resource_diff.hpp); empty where it has none.
  void set_incumbent_facts(std::vector<core::ConfigFacts> facts) { m_incumbent_facts = std::move(facts); }
  const std::vector<core::ConfigFacts>& incumbent_facts() const { return m_incumbent_facts; }
  const PairedConfig& config() const { return m_cfg; }
  const PairedRules& rules() const { return m_rules; }

 protected:
  // The incumbent's timing subject is let go (before its evaluation is).
  void release_incumbent() { m_incumbent.reset(); }

 private:
  std::unique_ptr<TimingSubject> m_incumbent;
  std::string m_incumbent_source;
  std::vector<core::ConfigFacts> m_incumbent_facts;
  PairedConfig m_cfg;
  PairedRules m_rules;
  std::map<std::string, PairedSeries> m_series;
  std::map<std::string, CheckFailure> m_failures;
};

}  // namespace kwb::eval
