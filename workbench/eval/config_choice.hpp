#pragma once
// Choosing a tunable config (docs/cuda.md "Choosing a config"): every config timed in round-robin
// blocks on the same inputs (the order drawn per round, so drift between configs cancels), then
// each compared with the fastest by the per-round ratios of their block medians, with the same
// order-statistic interval a decision uses. The winner is the fastest config unless another is
// indistinguishable from it (its interval holds 1): then the first of those in the declared
// order, so that noise and the order of timing never pick among ties. Its reported time comes
// from a pass of its own after the choice, never from these blocks (the minimum of noisy
// medians is biased low).
#include <vector>

#include "core/timing_names.hpp"

namespace kwb::eval {

struct ConfigRow {
  size_t config = 0;
  double median_ns = 0;       // of its blocks' medians
  double vs_winner = 1;       // its time / the winner's: the median of the per-round ratios
  double low = 1, high = 1;   // their interval
  core::ConfigLabel label = core::ConfigLabel::winner;  // tie: the interval holds 1
};

struct ConfigChoice {
  size_t winner = 0;
  std::vector<ConfigRow> rows;  // one per config, in declared order
};

// `block_medians[r][c]`: config c's block median in round r (every round times every config).
ConfigChoice choose_config(const std::vector<std::vector<double>>& block_medians, double confidence = 0.99);

}  // namespace kwb::eval
