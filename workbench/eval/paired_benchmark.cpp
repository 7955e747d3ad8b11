#include "eval/paired_benchmark.hpp"

#include <chrono>

#include "util/random.hpp"

namespace kwb::eval {

PairedBenchmark::PairedBenchmark(std::unique_ptr<TimingSubject> incumbent, PairedConfig cfg, PairedRules rules)
    : m_incumbent(std::move(incumbent)), m_cfg(cfg), m_rules(std::move(rules)) {}

std::optional<CheckFailure> PairedBenchmark::time(const core::Workload& w, TimingSubject& candidate,
                                                  const BenchmarkConfig& cfg, const StoppingCriterion& criterion,
                                                  const std::function<void()>& fresh_inputs, core::TimeStats& out) {
  using clock = std::chrono::steady_clock;
  WorkloadHarness* h = candidate.harness();
  if (!h) return CheckFailure{core::Status::error, "no workload begun"};
  auto& series = m_series.insert_or_assign(w.name, PairedSeries(m_cfg.confidence, m_rules, m_cfg.precision_pct,
                                                                m_cfg.min_blocks))
                     .first->second;
  util::Rng order(m_cfg.order_seed ^ util::secret_seed());
  // The incumbent lays the workload out with the candidate's inputs and is verified on them.
  bool paired = true;
  if (auto f = m_incumbent->begin_from(w, *h, order.next())) {
    m_failures[w.name] = *f;
    paired = false;
  }
  auto lose_incumbent = [&](const CheckFailure& f) {
    m_failures[w.name] = f;
    paired = false;
  };
  // Warm-up: page in code and buffers on both sides; not counted, not checked (the inputs are the
  // validation's, verified twice; every fresh round and the last call are verified below).
  if (paired) {
    auto warm = time_block_pair(candidate, *m_incumbent, 2, order.next() & 1);
    if (!warm && warm.error().candidate) return warm.error().failure;
    if (!warm) lose_incumbent(warm.error().failure);
  } else if (auto warm = candidate.block(2); !warm) {
    return warm.error();
  }

  std::vector<double> samples;  // the candidate's
  double solo_s = 0;            // candidate blocks timed alone (after the incumbent failed)
  int calls = 3, round = 0;
  bool verified = true;
  std::optional<core::TimingStop> stop;
  while (!stop) {
    // Rounds 2 .. rerandomised_rounds + 1 run on fresh inputs (the incumbent adopts them) and
    // are verified; the others are verified only if they turn out to be the last.
    const bool fresh = round > 0 && round <= cfg.rerandomised_rounds;
    if (fresh) {
      fresh_inputs();
      candidate.inputs_changed();
      if (paired) m_incumbent->adopt(*h);
    }
    const auto t0 = clock::now();
    std::vector<double> mine;
    if (paired) {
      auto pair = time_block_pair(candidate, *m_incumbent, calls, order.next() & 1);
      if (!pair && pair.error().candidate) return pair.error().failure;
      if (pair) {
        series.add(pair->first, pair->second, std::chrono::duration<double>(clock::now() - t0).count());
        mine = std::move(pair->first);
      } else {
        lose_incumbent(pair.error().failure);
      }
    }
    if (!paired && mine.empty()) {
      auto ns = candidate.block(calls);
      if (!ns) return ns.error();
      mine = std::move(*ns);
      solo_s += std::chrono::duration<double>(clock::now() - t0).count();
    }
    const double wall_s = std::chrono::duration<double>(clock::now() - t0).count();
    verified = fresh;
    if (fresh)
      if (auto f = candidate.verify(" during timing round " + std::to_string(round + 1) + " on re-randomised inputs"))
        return f;
    samples.insert(samples.end(), mine.begin(), mine.end());
    ++round;
    if (cfg.on_round) cfg.on_round(samples.size());
    const double timed_s = series.timed_s() + solo_s;
    auto why = timing_stop(samples, timed_s, cfg, criterion);
    // Converged: run on to the sequence's first look where that is cheap (the pairs still to go
    // take less than the timing so far, and the budget allows), so that a clear outcome is settled
    // before the verdict without delaying it much (GPU blocks take milliseconds; CPU blocks of a
    // large workload do not, and there the comparison carries on after the verdict instead).
    if (why == core::TimingStop::converged && paired) {
      const size_t look = series.sequence().first_look(), have = size_t(series.blocks());
      const double per_pair_s = have > 0 ? series.timed_s() / double(have) : 0;
      const double to_go_s = per_pair_s * double(look > have ? look - have : 0);
      if (have < look && to_go_s <= timed_s && (timed_s + to_go_s) * 1000 <= cfg.budget_ms) why.reset();
    }
    if (why) stop = *why;
    calls = next_block_calls(m_cfg, calls, paired ? wall_s : 2 * wall_s);
  }
  if (!verified)  // the last timed call's outputs are always checked
    if (auto f = candidate.verify(" on the last timed call (round " + std::to_string(round) + ")")) return f;
  out = summarize(samples);
  out.samples_ns = std::move(samples);
  out.stop_reason = core::timing_stop_name(*stop);
  out.timed_ms = (series.timed_s() + solo_s) * 1000.0;
  out.clock = core::timing_clock_name(core::TimingClock::steady_clock);
  out.cold = cfg.flush_bytes > 0;
  out.interleaved = series.blocks() > 0;
  return std::nullopt;
}

}  // namespace kwb::eval
