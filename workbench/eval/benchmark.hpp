#pragma once
// Timing of one bench workload (docs/evaluation.md "Timing"): warm-up, then rounds of timed calls
// with caches flushed and outputs poisoned before each (untimed); the first rounds run on
// re-randomised inputs; every re-randomised round and the last call of the last round are verified
// (docs/evaluation.md "Anti-cheat rules", rule 4); stops when the criterion holds (CPU: the mean's
// relative standard error < 0.5 % with >= 10 samples) and the timing batches have run for
// min_timed_ms, or when they have used the budget (time spent generating and checking inputs
// between them does not count).
#include <functional>
#include <optional>

#include "core/timing_names.hpp"
#include "core/verdict.hpp"
#include "eval/harness.hpp"
#include "eval/stats.hpp"

namespace kwb::eval {

struct BenchmarkConfig {
  int budget_ms = 1000;
  // Converged samples end the timing only after this much timed wall time (0: at once; capped
  // by the budget). GPU: samples of some kernels come in runs of a slower mode, and a short
  // timing can land in one (docs/cuda.md "Adaptive stop").
  int min_timed_ms = 0;
  size_t flush_bytes = 64u << 20;
  int command_timeout_ms = 10000;
  int rerandomised_rounds = 3;  // rounds that get fresh inputs before timing
  int max_samples = 5000;
  // The budget ends timing only once this many samples are in (a floor for decisions on large
  // workloads, issue 14), unless the timing has run for hard_budget_ms (a kernel of seconds per call).
  int min_samples = 10;
  int hard_budget_ms = 60000;
  // The runner keeps its own copy of the arena (kwb-gpu-runner), so the last round's outputs are
  // fetched before they are verified; rounds that are not verified skip the download and rounds
  // on unchanged inputs the upload (RunnerSession::Copies).
  bool device_copies = false;
  // Called after every timing round with the number of samples so far (progress events).
  std::function<void(size_t samples)> on_round = {};
};

// Why timing stops after a round, or nothing to go on: the criterion held (after min_timed_ms),
// max_samples, the budget with min_samples in, or the hard budget without them.
std::optional<core::TimingStop> timing_stop(const std::vector<double>& samples, double timed_s,
                                            const BenchmarkConfig& cfg, const StoppingCriterion& criterion);
// The same by its name (core/timing_names.hpp), as TimeStats::stop_reason holds it.
std::optional<std::string> stop_reason(const std::vector<double>& samples, double timed_s,
                                       const BenchmarkConfig& cfg, const StoppingCriterion& criterion);

// `fresh_inputs` loads a new input set (new secret seed) into the harness.
std::optional<CheckFailure> run_benchmark(WorkloadHarness& harness, RunnerSession& runner,
                                          const BenchmarkConfig& cfg, const StoppingCriterion& criterion,
                                          const std::function<void()>& fresh_inputs, core::TimeStats& out);

}  // namespace kwb::eval
