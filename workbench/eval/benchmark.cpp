#include "eval/benchmark.hpp"

#include <algorithm>
#include <chrono>

namespace kwb::eval {

std::optional<core::TimingStop> timing_stop(const std::vector<double>& samples, double timed_s,
                                            const BenchmarkConfig& cfg, const StoppingCriterion& criterion) {
  using core::TimingStop;
  const double timed_ms = timed_s * 1000.0;
  if (criterion.converged(samples) && timed_ms >= std::min(cfg.min_timed_ms, cfg.budget_ms)) return TimingStop::converged;
  if (int(samples.size()) >= cfg.max_samples) return TimingStop::max_samples;
  if (timed_ms >= cfg.budget_ms && int(samples.size()) >= cfg.min_samples) return TimingStop::budget;
  if (timed_ms >= std::max(cfg.budget_ms, cfg.hard_budget_ms)) return TimingStop::hard_budget;
  return std::nullopt;
}

std::optional<std::string> stop_reason(const std::vector<double>& samples, double timed_s,
                                       const BenchmarkConfig& cfg, const StoppingCriterion& criterion) {
  auto stop = timing_stop(samples, timed_s, cfg, criterion);
  if (!stop) return std::nullopt;
  return std::string(core::timing_stop_name(*stop));
}

std::optional<CheckFailure> run_benchmark(WorkloadHarness& harness, RunnerSession& runner,
                                          const BenchmarkConfig& cfg, const StoppingCriterion& criterion,
                                          const std::function<void()>& fresh_inputs, core::TimeStats& out) {
  using clock = std::chrono::steady_clock;
  // The budget counts the timing batches only, not the trusted side's input generation and
  // checking between them: on large workloads those took most of it and left few samples.
  double timed_s = 0;
  auto timeout = [&] { return cfg.command_timeout_ms + cfg.budget_ms; };

  // Warm-up: page in the code and the buffers; its time is discarded and its outputs are not
  // checked: the inputs are the validation's (just verified twice), the rounds on re-randomised
  // inputs and the last timed call are verified below, and downloading and checking a bench
  // workload's arena once more cost ~20 ms per 16 Mi-element workload. The upload carries the
  // guards the caller re-armed.
  if (auto r = runner.time(2, cfg.flush_bytes, timeout(), {.upload = true, .download = false}); !r)
    return CheckFailure{r.error().status, r.error().reason};
  if (!cfg.device_copies) harness.outputs_unverified();

  std::vector<double> samples;
  int calls = 3;
  int round = 0;
  bool verified = true;  // the last round's outputs were checked
  while (true) {
    // Rounds 2.. up to rerandomised_rounds + 1 run on fresh inputs and are verified; the others
    // are verified only if they turn out to be the last (below).
    const bool fresh = round > 0 && round <= cfg.rerandomised_rounds;
    if (fresh) fresh_inputs();
    auto round_start = clock::now();
    // The device holds our inputs and guards since the warm-up's upload: only fresh ones need another.
    auto ns = runner.time(calls, cfg.flush_bytes, timeout(), {.upload = fresh, .download = fresh});
    if (!ns) return CheckFailure{ns.error().status, ns.error().reason};
    auto round_s = std::chrono::duration<double>(clock::now() - round_start).count();
    timed_s += round_s;
    verified = fresh;
    if (verified) {
      if (auto f = harness.verify(" during timing round " + std::to_string(round + 1) +
                                  (fresh ? " on re-randomised inputs" : "")))
        return f;
    } else if (!cfg.device_copies) {
      harness.outputs_unverified();
    }
    for (auto v : *ns) samples.push_back(double(v));
    ++round;
    if (cfg.on_round) cfg.on_round(samples.size());
    if (auto why = timing_stop(samples, timed_s, cfg, criterion)) {
      out.stop_reason = core::timing_stop_name(*why);
      break;
    }
    // Size the next round to a quarter of what is left, at most doubling.
    double per_call = round_s / calls;
    double left = cfg.budget_ms / 1000.0 - timed_s;
    int want = per_call > 0 ? int(left / 4 / per_call) : calls * 2;
    calls = std::clamp(want, 1, std::min(calls * 2, cfg.max_samples - int(samples.size())));
  }
  if (!verified) {  // the last timed call's outputs are always checked
    if (cfg.device_copies)
      if (auto r = runner.command({{"op", "fetch"}}, cfg.command_timeout_ms, "fetching the last outputs"); !r)
        return CheckFailure{r.error().status, r.error().reason};
    if (auto f = harness.verify(" on the last timed call (round " + std::to_string(round) + ")")) return f;
  }
  out = [&] {
    auto t = summarize(samples);
    t.stop_reason = out.stop_reason;
    t.timed_ms = timed_s * 1000.0;
    t.samples_ns = std::move(samples);
    return t;
  }();
  out.clock = core::timing_clock_name(core::TimingClock::steady_clock);
  out.cold = cfg.flush_bytes > 0;
  return std::nullopt;
}

}  // namespace kwb::eval
