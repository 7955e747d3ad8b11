#pragma once
// How the benchmark stage times one bench workload (cpu_workloads.cpp, cuda_workloads.cpp). By
// default the candidate alone (run_benchmark, benchmark.hpp). Where the library holds an
// incumbent to compare with, the judging policy gives the evaluation a timer that times the
// candidate interleaved with the incumbent (paired_benchmark.hpp): the candidate's bench timing
// IS the comparison's first block pairs, one pass instead of two (docs/library.md "One pass").
#include <functional>
#include <optional>

#include "core/spec.hpp"
#include "core/verdict.hpp"
#include "eval/benchmark.hpp"
#include "eval/stats.hpp"
#include "eval/timing_subject.hpp"

namespace kwb::eval {

class BenchTimer {
 public:
  virtual ~BenchTimer() = default;
  // Times `candidate` (attached to the benchmark stage's harness of `w`: inputs loaded and
  // verified) under the same rules as run_benchmark (warm-up, re-randomised verified rounds, the
  // last timed call verified, `criterion` and the budget), filling `out` with the candidate's
  // times; nothing, or the candidate's failure. `fresh_inputs` loads a new input set into the
  // candidate's harness.
  virtual std::optional<CheckFailure> time(const core::Workload& w, TimingSubject& candidate, const BenchmarkConfig& cfg,
                                           const StoppingCriterion& criterion,
                                           const std::function<void()>& fresh_inputs, core::TimeStats& out) = 0;
};

}  // namespace kwb::eval
