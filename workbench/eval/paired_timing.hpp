#pragma once
// Interleaved A/B timing (docs/library.md "Decide"): the candidate and the incumbent, each in its
// own sandboxed runner, timed in alternating blocks (the order drawn per block pair) on the same
// inputs with the same flush and clock, the side not being timed frozen where it could work on
// its own. The statistic is on the paired ratios (incumbent block median / candidate block
// median): their median, and an interval valid under repeated looks (paired_series.hpp), so the
// comparison stops as soon as the answer is known.
#include <cstdint>
#include <expected>
#include <functional>
#include <string>
#include <vector>

#include "core/verdict.hpp"
#include "eval/paired_series.hpp"
#include "eval/timing_subject.hpp"

namespace kwb::eval {

struct PairedConfig {
  int budget_ms = 2000;        // wall time of the blocks, at most (the series' blocks so far count)
  int min_blocks = 0;          // block pairs before the comparison may stop (beyond the first look)
  int max_blocks = 400;
  double confidence = 0.99;    // of the interval, over every look together
  double block_ms = 20;        // each side's block is sized to about this long
  int max_calls = 64;          // calls per block, at most
  uint64_t order_seed = 0;     // draws the order of each block pair
  // > 0: settling also needs the interval within +-precision_pct % of the ratio.
  double precision_pct = 0;
};

// A failure of one side: `candidate` says whose.
struct PairedFailure {
  bool candidate = true;
  CheckFailure failure;
};

// One block pair, in the order `candidate_first` says, the side not timed frozen (where its
// subject freezes); each side's per-call times.
std::expected<std::pair<std::vector<double>, std::vector<double>>, PairedFailure> time_block_pair(
    TimingSubject& candidate, TimingSubject& incumbent, int calls, bool candidate_first);

// The calls per block that make each side's block about cfg.block_ms, from the last pair's wall
// time (the slower side's per-call time).
int next_block_calls(const PairedConfig& cfg, int calls, double pair_wall_s);

// Both sides begun on `w` (the incumbent with the candidate's inputs: the same values, generated
// once), then block pairs added to `series` until it is settled, the budget (counting the
// series' earlier blocks) or max_blocks; both verified after the first and the last block.
std::expected<core::Comparison, PairedFailure> compare_interleaved(TimingSubject& candidate, TimingSubject& incumbent,
                                                                   const core::Workload& w, uint64_t input_seed,
                                                                   const PairedConfig& cfg, PairedSeries& series,
                                                                   const std::function<void(const core::Comparison&)>& progress = {});

}  // namespace kwb::eval
