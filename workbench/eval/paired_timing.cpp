#include "eval/paired_timing.hpp"

#include <algorithm>
#include <chrono>

#include "core/timing_names.hpp"
#include "util/random.hpp"

namespace kwb::eval {

std::expected<std::pair<std::vector<double>, std::vector<double>>, PairedFailure> time_block_pair(
    TimingSubject& candidate, TimingSubject& incumbent, int calls, bool candidate_first) {
  // One block of `calls` on `side` while the other is frozen.
  auto timed = [&](TimingSubject& side, TimingSubject& other,
                   bool side_is_candidate) -> std::expected<std::vector<double>, PairedFailure> {
    if (auto r = other.freeze(); !r)
      return std::unexpected(PairedFailure{!side_is_candidate,
                                           {core::Status::sandbox_violation,
                                            other.who() + "'s sandbox could not be frozen while " + side.who() +
                                                " was timed: " + r.error().what()}});
    auto ns = side.block(calls);
    other.thaw();
    if (!ns) return std::unexpected(PairedFailure{side_is_candidate, ns.error()});
    return *ns;
  };
  std::pair<std::vector<double>, std::vector<double>> out;  // candidate, incumbent
  for (int turn = 0; turn < 2; ++turn) {
    const bool cand_turn = (turn == 0) == candidate_first;
    auto ns = cand_turn ? timed(candidate, incumbent, true) : timed(incumbent, candidate, false);
    if (!ns) return std::unexpected(ns.error());
    (cand_turn ? out.first : out.second) = std::move(*ns);
  }
  return out;
}

int next_block_calls(const PairedConfig& cfg, int calls, double pair_wall_s) {
  const double per_call_ms = pair_wall_s * 1000 / 2 / std::max(1, calls);
  return std::clamp(per_call_ms > 0 ? int(cfg.block_ms / per_call_ms) : calls * 2, 1, cfg.max_calls);
}

std::expected<core::Comparison, PairedFailure> compare_interleaved(TimingSubject& candidate, TimingSubject& incumbent,
                                                                   const core::Workload& w, uint64_t input_seed,
                                                                   const PairedConfig& cfg, PairedSeries& series,
                                                                   const std::function<void(const core::Comparison&)>& progress) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto fail = [](bool cand, CheckFailure f) { return std::unexpected(PairedFailure{cand, std::move(f)}); };
  util::Rng order(cfg.order_seed ^ input_seed);
  if (auto f = candidate.begin(w, input_seed, order.next())) return fail(true, *f);
  if (auto* h = candidate.harness())
    if (auto f = incumbent.begin_from(w, *h, order.next())) return fail(false, *f);
  int calls = 1;
  bool first = true;
  core::Comparison c = series.comparison();
  using core::ComparisonStop;
  std::optional<ComparisonStop> stop;
  while (!stop) {
    if (series.settled()) {
      stop = ComparisonStop::settled;
      break;
    }
    auto t0 = clock::now();
    auto pair = time_block_pair(candidate, incumbent, calls, order.next() & 1);
    if (!pair) return std::unexpected(pair.error());
    const double wall_s = std::chrono::duration<double>(clock::now() - t0).count();
    series.add(pair->first, pair->second, wall_s);
    if (first) {  // the first block pair verifies both sides' outputs
      if (auto f = candidate.verify(" after the first interleaved timing block")) return fail(true, *f);
      if (auto f = incumbent.verify(" after the first interleaved timing block")) return fail(false, *f);
      first = false;
    }
    c = series.comparison();
    const bool looked = size_t(series.blocks()) >= series.sequence().first_look();
    if (series.settled()) stop = ComparisonStop::settled;
    else if (series.blocks() >= cfg.max_blocks) stop = ComparisonStop::max_blocks;
    else if (series.timed_s() * 1000 >= cfg.budget_ms && looked && series.blocks() >= cfg.min_blocks)
      stop = ComparisonStop::budget;
    if (progress && (series.blocks() % 10 == 0 || stop)) progress(c);
    calls = next_block_calls(cfg, calls, wall_s);
  }
  if (auto f = candidate.verify(" after the last interleaved timing block")) return fail(true, *f);
  if (auto f = incumbent.verify(" after the last interleaved timing block")) return fail(false, *f);
  c.stop_reason = core::comparison_stop_name(*stop);
  c.ms = std::chrono::duration<double, std::milli>(clock::now() - start).count();
  return c;
}

}  // namespace kwb::eval
