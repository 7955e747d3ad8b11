#include "app/baseline_judge.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "core/backend.hpp"
#include "core/timing_names.hpp"

namespace kwb::app {

namespace {

// A cuda-form candidate is timed by CUPTI's kernel timestamps, a baseline (a launcher) by CUDA
// events around its host call, whose window also holds the launch latency (~2 us on the H200):
// the baseline's median is compared less the difference of the two clocks' readings of an empty
// kernel, both measured (launch_overhead_ns), so neither side is charged for the other's clock.
// Returns the latency taken off (0 when the clocks agree).
double clock_correction(const core::TimeStats& candidate, const core::TimeStats& baseline) {
  const auto by = core::parse_timing_clock(candidate.clock);
  if (!by || !core::timed_by_cupti(*by) || core::parse_timing_clock(baseline.clock) != core::TimingClock::cuda_event)
    return 0;
  double latency = baseline.launch_overhead_ns - candidate.launch_overhead_ns;
  return latency > 0 && latency < baseline.median_ns ? latency : 0;
}

}  // namespace

void BaselineJudge::judge(core::Verdict& v, const BaselineMeasureFn& measure) {
  if (v.status != core::Status::accepted || !core::on_gpu(v.backend)) return;
  const core::Spec* spec = m_specs.find(v.op);
  if (!spec) return;
  const core::Baseline* baseline = nullptr;
  for (const auto& b : spec->baselines)
    if (std::find(b.variants.begin(), b.variants.end(), v.variant) != b.variants.end()) {
      baseline = &b;
      break;
    }
  if (!baseline) return;
  // The baseline's share of the verdict's time (waiting for another evaluation's timing of it
  // included): stage_ms.baseline, part of wall_ms (docs/verdict.md).
  struct Counted {
    core::Verdict& v;
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    ~Counted() {
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      v.summary.stage_ms["baseline"] = ms;
      v.summary.wall_ms += ms;
    }
  } counted{v};
  std::lock_guard lock(m_mutex);
  const std::string key = v.op + "/" + v.variant + "/" + baseline->name + "/" + v.device;
  if (auto f = m_failed.find(key); f != m_failed.end()) {
    v.reason += "; no vs_baseline: " + f->second;
    return;
  }
  std::vector<std::string> missing;
  for (const auto& w : v.workloads)
    if (w.kind == "bench" && w.time && !m_times.contains(key + "/" + w.name)) missing.push_back(w.name);
  if (!missing.empty()) {
    core::Candidate kernel{"baseline:" + baseline->name, v.op, v.variant, std::string(core::backend_name(core::Backend::cuda_launcher)), baseline->source,
                           baseline->file, baseline->flags, baseline->note};
    core::Verdict bv = measure(kernel, missing);
    if (bv.status != core::Status::accepted) {
      std::string why = fmt::format("the {} baseline ({}) was {}: {}", baseline->name, baseline->file,
                                    core::status_name(bv.status), bv.reason);
      // Only a verdict about the baseline's code is remembered; a busy or missing device is not.
      using S = core::Status;
      if (bv.status == S::incorrect || bv.status == S::compile_error || bv.status == S::rejected ||
          bv.status == S::crashed)
        m_failed[key] = why;
      v.reason += "; no vs_baseline: " + why;
      return;
    }
    for (const auto& w : bv.workloads)
      if (w.kind == "bench" && w.time) m_times[key + "/" + w.name] = *w.time;
  }
  double log_sum = 0, corrected = 0;
  int n = 0;
  for (auto& w : v.workloads) {
    if (w.kind != "bench" || !w.time || w.time->median_ns <= 0) continue;
    auto it = m_times.find(key + "/" + w.name);
    if (it == m_times.end()) continue;
    double latency = clock_correction(*w.time, it->second);
    corrected = std::max(corrected, latency);
    w.vs_baseline = (it->second.median_ns - latency) / w.time->median_ns;
    log_sum += std::log(*w.vs_baseline);
    ++n;
  }
  if (n == 0) return;
  v.summary.geomean_vs_baseline = std::exp(log_sum / n);
  v.reason += fmt::format("; {:.3f}x the {} baseline (geomean over {} bench workload{})", *v.summary.geomean_vs_baseline,
                          baseline->name, n, n == 1 ? "" : "s");
  if (corrected > 0)
    v.reason += fmt::format(" (the baseline, timed by CUDA events, less their launch latency of {:.1f} us)", corrected / 1e3);
}

}  // namespace kwb::app
