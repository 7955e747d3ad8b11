#include "eval/paired_timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "util/random.hpp"

namespace kwb::eval {

namespace {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

MedianInterval median_interval(std::vector<double> ratios, double confidence) {
  MedianInterval out;
  if (ratios.empty()) return out;
  std::sort(ratios.begin(), ratios.end());
  const size_t n = ratios.size();
  out.median = n % 2 ? ratios[n / 2] : 0.5 * (ratios[n / 2 - 1] + ratios[n / 2]);
  // cdf[k] = P(X <= k) for X ~ Binomial(n, 1/2), accumulated term by term.
  const double tail = (1.0 - confidence) / 2.0;
  double term = std::pow(0.5, double(n)), below = 0;  // P(X = 0), P(X < k)
  size_t k = 0;                                       // 1-based order statistic; 0: none fits
  for (size_t j = 1; j <= n / 2; ++j) {
    below += term;  // P(X < j) = P(X <= j - 1)
    if (below > tail) break;
    k = j;
    term *= double(n - (j - 1)) / double(j);
  }
  if (k == 0) {
    out.low = ratios.front();
    out.high = ratios.back();
    out.confidence = 1.0 - 2.0 * std::pow(0.5, double(n));
    return out;
  }
  out.low = ratios[k - 1];
  out.high = ratios[n - k];
  // The interval's exact coverage: 1 - 2 P(X < k).
  double p = 0, t = std::pow(0.5, double(n));
  for (size_t j = 0; j < k; ++j) {
    p += t;
    t *= double(n - j) / double(j + 1);
  }
  out.confidence = 1.0 - 2.0 * p;
  return out;
}

std::expected<core::Comparison, PairedFailure> compare_interleaved(TimingSubject& candidate, TimingSubject& incumbent,
                                                                   const core::Workload& w, uint64_t input_seed,
                                                                   const PairedConfig& cfg, const PairedRules& rules,
                                                                   const std::function<void(const core::Comparison&)>& progress) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto fail = [](bool cand, CheckFailure f) { return std::unexpected(PairedFailure{cand, std::move(f)}); };
  util::Rng order(cfg.order_seed ^ input_seed);
  if (auto f = candidate.begin(w, input_seed, order.next())) return fail(true, *f);
  if (auto f = incumbent.begin(w, input_seed, order.next())) return fail(false, *f);

  // One block of `calls` on `side` while the other is frozen.
  auto timed = [&](TimingSubject& side, TimingSubject& other, bool side_is_candidate,
                   int calls) -> std::expected<std::vector<double>, PairedFailure> {
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

  std::vector<double> ratios, cand_all, inc_all;
  core::Comparison c;
  c.confidence = cfg.confidence;
  int calls = 1;
  double timed_s = 0;
  while (true) {
    const bool candidate_first = order.next() & 1;
    auto t0 = clock::now();
    std::vector<double> a, b;  // candidate, incumbent
    for (int turn = 0; turn < 2; ++turn) {
      const bool cand_turn = (turn == 0) == candidate_first;
      auto ns = cand_turn ? timed(candidate, incumbent, true, calls) : timed(incumbent, candidate, false, calls);
      if (!ns) return std::unexpected(ns.error());
      (cand_turn ? a : b) = std::move(*ns);
    }
    const double block_s = std::chrono::duration<double>(clock::now() - t0).count();
    timed_s += block_s;
    const double ma = median_of(a), mb = median_of(b);
    if (!(ma > 0) || !(mb > 0))
      return fail(ma > 0 ? false : true, {core::Status::error, "a timing block read no time"});
    ratios.push_back(mb / ma);
    cand_all.insert(cand_all.end(), a.begin(), a.end());
    inc_all.insert(inc_all.end(), b.begin(), b.end());
    if (ratios.size() == 1) {  // the first block pair verifies both sides' outputs
      if (auto f = candidate.verify(" after the first interleaved timing block")) return fail(true, *f);
      if (auto f = incumbent.verify(" after the first interleaved timing block")) return fail(false, *f);
    }
    auto mi = median_interval(ratios, cfg.confidence);
    c.ratio = mi.median;
    c.low = mi.low;
    c.high = mi.high;
    c.confidence = mi.confidence;
    c.blocks = int(ratios.size());
    c.samples = int(cand_all.size());
    c.label = rules.label(c.low, c.high);
    const bool enough = c.blocks >= cfg.min_blocks && mi.confidence >= cfg.confidence;
    const bool precise = cfg.precision_pct <= 0 || (c.high <= c.ratio * (1 + cfg.precision_pct / 100) &&
                                                    c.low >= c.ratio * (1 - cfg.precision_pct / 100));
    if (enough && precise && !rules.needs_more(c)) c.stop_reason = "settled";
    else if (c.blocks >= cfg.max_blocks) c.stop_reason = "max_blocks";
    else if (timed_s * 1000 >= cfg.budget_ms && c.blocks >= cfg.min_blocks) c.stop_reason = "budget";
    if (progress && (c.blocks % 10 == 0 || !c.stop_reason.empty())) progress(c);
    if (!c.stop_reason.empty()) break;
    // Size the next blocks so each side's takes about block_ms (the per-call time of the slower side).
    double per_call_ms = block_s * 1000 / 2 / calls;
    calls = std::clamp(per_call_ms > 0 ? int(cfg.block_ms / per_call_ms) : calls * 2, 1, cfg.max_calls);
  }
  if (auto f = candidate.verify(" after the last interleaved timing block")) return fail(true, *f);
  if (auto f = incumbent.verify(" after the last interleaved timing block")) return fail(false, *f);
  c.candidate_ns = median_of(cand_all);
  c.incumbent_ns = median_of(inc_all);
  c.ms = std::chrono::duration<double, std::milli>(clock::now() - start).count();
  return c;
}

}  // namespace kwb::eval
