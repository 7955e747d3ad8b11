#pragma once
// Interleaved A/B timing (docs/library.md "Decide"): the candidate and the incumbent, each in its
// own sandboxed runner, timed in alternating blocks (the order drawn per block pair) on the same
// inputs with the same flush and clock, the side not being timed frozen. The statistic is on the
// paired ratios: the median of the per-block ratios (incumbent block median / candidate block
// median) with a distribution-free confidence interval from order statistics (sign test).
#include <cstdint>
#include <expected>
#include <functional>
#include <string>
#include <vector>

#include "core/verdict.hpp"
#include "eval/timing_subject.hpp"

namespace kwb::eval {

// The median of `ratios` and the order-statistic interval [x_(k), x_(n+1-k)] holding the true
// median with at least `confidence` (the largest k with P(Binomial(n, 1/2) < k) <= (1 - c) / 2);
// [min, max] when n is too small for that confidence (the returned confidence says what it is).
struct MedianInterval {
  double median = 0, low = 0, high = 0, confidence = 0;
};
MedianInterval median_interval(std::vector<double> ratios, double confidence);

struct PairedConfig {
  int budget_ms = 2000;        // wall time of the blocks, at most
  int min_blocks = 10;         // block pairs before the comparison may stop
  int max_blocks = 400;
  double confidence = 0.99;
  double block_ms = 20;        // each side's block is sized to about this long
  int max_calls = 64;          // calls per block, at most
  uint64_t order_seed = 0;     // draws the order of each block pair
  // > 0: settling also needs the interval within +-precision_pct % of the ratio (more blocks,
  // within the budget and max_blocks): GPU blocks are cheap, and a tight interval is the evidence.
  double precision_pct = 0;
};

// Labels an interval ("faster", ...) and says whether it needs more blocks (library/decision.hpp).
struct PairedRules {
  std::function<std::string(double low, double high)> label;
  std::function<bool(const core::Comparison&)> needs_more;
};

// A failure of one side: `candidate` says whose.
struct PairedFailure {
  bool candidate = true;
  CheckFailure failure;
};

std::expected<core::Comparison, PairedFailure> compare_interleaved(TimingSubject& candidate, TimingSubject& incumbent,
                                                                   const core::Workload& w, uint64_t input_seed,
                                                                   const PairedConfig& cfg, const PairedRules& rules,
                                                                   const std::function<void(const core::Comparison&)>& progress = {});

}  // namespace kwb::eval
