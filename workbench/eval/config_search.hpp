#pragma once
// Searching a tunable space too large for the grid (docs/tuning.md "The search"): a seeded
// evolutionary search that spends a budget of evaluations well.
//
// - The space is seen as coordinates, one per tunable (the index of its value among the
//   tunable's sorted values), so that a mutation moves to a neighbouring value.
// - A cost-model prior (a predicted time per config, lower is better; any scale) picks the
//   first generation and screens the offspring: of many mutants of the best configs so far, the
//   ones the prior ranks best are evaluated (and one at random, so a wrong prior cannot trap it).
// - An evaluation races the config against the best so far in paired blocks (the order within a
//   pair alternating), reading the median of their ratios with the interval of
//   sequential_interval.hpp at its looks: a config whose whole interval is above 1 is clearly
//   slower and aborted there; else it runs to the block limit, and its estimated time is the
//   best's times the median ratio.
// - Configs are proposed in batches (compiled together by the caller), at most `budget` of them;
//   once the best of the current epoch has held for a tenth of the budget and every neighbour of
//   it was tried, the search restarts elsewhere (a new first generation, mutating only what the
//   new epoch found), so that one basin does not hold it. It stops when the budget is spent, the
//   space is exhausted, or the best overall has held for half of the budget.
// - The finalists (the best estimated) are then compared interleaved (compare_finalists, or the
//   caller's own round-robin), with config_choice.hpp deciding.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/launch_plan.hpp"
#include "eval/config_choice.hpp"

namespace kwb::eval {

struct SearchSpace {
  std::vector<std::vector<int64_t>> values;   // per tunable (sorted)
  std::vector<std::vector<uint16_t>> points;  // per config: its value's index per tunable
};
// The space of `configs` (the tunables are the first config's keys).
SearchSpace search_space(const std::vector<core::TuneConfig>& configs);

struct SearchOptions {
  size_t budget = 0;         // evaluations; 0: default_search_budget(space size)
  uint64_t seed = 1;
  size_t batch = 4;          // configs proposed (compiled) together
  size_t finalists = 4;
  size_t max_blocks = 16;    // pairs of blocks at most per evaluation
  double abort_confidence = 0.9;  // the sequential interval that aborts a clearly slower config
};
// A fifth of the space, at least 16 (and at most the space).
size_t default_search_budget(size_t space);

struct SearchHooks {
  // Makes a batch ready to time (compiles it): per config, empty or why it cannot be timed (it
  // then counts as tried and failed). Empty hook: every config is ready.
  std::function<std::vector<std::string>(const std::vector<size_t>&)> prepare;
  // One block of config `c`: its median time in ns; nullopt stops the search (the caller's
  // verdict is decided).
  std::function<std::optional<double>(size_t c)> block;
};

enum class TriedOutcome { timed, slower, failed };
const char* tried_outcome_name(TriedOutcome o);  // "timed", "slower" (aborted early), "failed"

struct TriedConfig {
  size_t config = 0;
  TriedOutcome outcome = TriedOutcome::timed;
  double estimate_ns = 0;  // the best's estimate times the median ratio (0 when failed)
  size_t blocks = 0;       // blocks timed for it, the best's blocks of the race included
  std::string why;         // failed: the prepare hook's reason
};

struct SearchResult {
  bool ok = true;                  // false: a block hook gave up
  std::vector<TriedConfig> tried;  // in the order evaluated
  std::vector<size_t> finalists;   // config indices, in the space's order
  size_t best = 0;                 // the best estimated config
  std::string stop;                // why the search stopped
};

// `prior`: one predicted time per config, or empty for none.
SearchResult search_configs(const SearchSpace& space, const std::vector<double>& prior, const SearchOptions& opt,
                            const SearchHooks& hooks);

// The finalists timed in round-robin rounds (the order drawn per round; at least 9 rounds, until
// every one is told apart from the fastest, at most `max_rounds`) and chosen by choose_config;
// the rows' `config` are positions in `finalists`. Nullopt when the block hook gives up.
std::optional<ConfigChoice> compare_finalists(const std::vector<size_t>& finalists,
                                              const std::function<std::optional<double>(size_t c)>& block,
                                              uint64_t seed, int max_rounds = 40);

}  // namespace kwb::eval
