#include "eval/benchmark.hpp"

#include <algorithm>
#include <chrono>

namespace kwb::eval {

std::optional<CheckFailure> run_benchmark(WorkloadHarness& harness, RunnerSession& runner,
                                          const BenchmarkConfig& cfg, const StoppingCriterion& criterion,
                                          const std::function<void()>& fresh_inputs, core::TimeStats& out) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const auto budget = std::chrono::milliseconds(cfg.budget_ms);
  auto timeout = [&] { return cfg.command_timeout_ms + cfg.budget_ms; };

  // Warm-up: page in the code and the buffers; its output is verified, its time discarded.
  if (auto r = runner.time(2, cfg.flush_bytes, timeout()); !r)
    return CheckFailure{r.error().status, r.error().reason};
  if (auto f = harness.verify(" during warm-up")) return f;

  std::vector<double> samples;
  int calls = 3;
  int round = 0;
  out.stop_reason = "budget";
  while (true) {
    if (round > 0 && round <= cfg.rerandomised_rounds) fresh_inputs();
    auto round_start = clock::now();
    auto ns = runner.time(calls, cfg.flush_bytes, timeout());
    if (!ns) return CheckFailure{ns.error().status, ns.error().reason};
    auto round_s = std::chrono::duration<double>(clock::now() - round_start).count();
    if (auto f = harness.verify(" during timing round " + std::to_string(round + 1) +
                                (round > 0 && round <= cfg.rerandomised_rounds ? " on re-randomised inputs" : "")))
      return f;
    for (auto v : *ns) samples.push_back(double(v));
    ++round;
    if (criterion.converged(samples)) {
      out.stop_reason = "converged";
      break;
    }
    if (int(samples.size()) >= cfg.max_samples) {
      out.stop_reason = "max_samples";
      break;
    }
    auto elapsed = clock::now() - start;
    if (elapsed >= budget) break;
    // Size the next round to a quarter of what is left, at most doubling.
    double per_call = round_s / calls;
    double left = std::chrono::duration<double>(budget - elapsed).count();
    int want = per_call > 0 ? int(left / 4 / per_call) : calls * 2;
    calls = std::clamp(want, 1, std::min(calls * 2, cfg.max_samples - int(samples.size())));
  }
  out = [&] {
    auto t = summarize(samples);
    t.stop_reason = out.stop_reason;
    return t;
  }();
  out.clock = "steady_clock";
  out.cold = cfg.flush_bytes > 0;
  return std::nullopt;
}

}  // namespace kwb::eval
