#pragma once
// The decision rule (docs/library.md "Decide"): a pure function of the interleaved comparisons
// and the policy, with no storage, git or timing in it, so it can be tested exhaustively.
#include <string>
#include <vector>

#include "core/timing_names.hpp"
#include "core/verdict.hpp"

namespace kwb::library {

struct Policy {
  double min_gain_pct = 3.0;        // a win: faster, with the interval's low end at least this much above 1
  double same_margin_pct = 2.0;     // "same": the whole interval within this margin of 1 (either way)
  double max_regression_pct = 5.0;  // no bench workload slower than this, by its estimate or its interval
  double confidence = 0.99;         // of each workload's interval
  int decide_budget_ms = 3000;      // interleaved timing per bench workload, at most
  // Block pairs before a workload may be settled or stop on the budget, beyond the interval's
  // first look (eval/sequential_interval.hpp: 9 block pairs at 99 %, which the stopping rule
  // needs for any claim); 0: the first look alone (docs/library.md "Stopping").
  int min_blocks = 0;
  // GPU comparisons settle only once the interval is within +-this % of the ratio (0: off); the
  // budget still stops them. CPU blocks are too dear for it (docs/library.md "Decide").
  double gpu_precision_pct = 0;
  double gpu_block_ms = 5;          // each side's block of GPU calls is sized to about this long
  // CPU comparisons use at least these for min_gain_pct and same_margin_pct: one kernel timed in
  // two CPU runner processes reads up to ~3.3 % apart with tight intervals (where each process's
  // memory landed; docs/benchmarks/decide.md), against ~1.5 % on the H200.
  double cpu_min_gain_pct = 5.0;
  double cpu_same_margin_pct = 4.0;
};

// The policy a comparison on `device_key` ("cpu-...", "cuda-...") is decided by: on the CPU the
// win and equivalence margins are at least the CPU ones.
Policy policy_for(const Policy& p, const std::string& device_key);

// One bench workload's comparison, named.
struct WorkloadComparison {
  std::string workload;
  core::Comparison comparison;
};

// The label of an interval [low, high] of the ratio (incumbent / candidate time):
// same when it lies within the equivalence margin, else faster when it lies above 1,
// slower below 1, and undecided when it straddles 1 and leaves the margin.
core::ComparisonLabel label_interval(double low, double high, const Policy& p);
// Its name (core/timing_names.hpp), as core::Comparison::label holds it.
std::string label_of(double low, double high, const Policy& p);

// Whether more blocks could still change what the decision makes of this comparison: false once
// it is "same", a win by the margin, a regression beyond the allowance by its whole interval, or
// a slowdown whose whole interval is within the allowance.
bool needs_more_blocks(const core::Comparison& c, const Policy& p);

// Promotable only when no comparison is malformed (its interval must hold its estimate), none is
// "undecided", none is slower than the allowance by its interval's low end (which is at or below
// its estimate), at least one is "faster" with its low end at least min_gain above 1, and the
// geometric mean of the ratios is above 1.
core::Decision decide(const std::vector<WorkloadComparison>& comparisons, const Policy& p);

}  // namespace kwb::library
