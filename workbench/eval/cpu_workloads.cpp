// The CPU evaluation's benchmark stage (its validate stage is BasicEvaluation::run_tests): every
// bench workload checked on fresh inputs, then timed (eval/benchmark.hpp) against a physics floor.
#include <algorithm>

#include <fmt/format.h>

#include "eval/benchmark.hpp"
#include "eval/cpu_evaluation.hpp"
#include "eval/harness.hpp"
#include "eval/roofline_position.hpp"

namespace kwb::eval {

namespace {

// Physics floor: no kernel moves its compulsory bytes faster than this multiple of the
// calibrated one-thread copy bandwidth (caches are flushed before every sample), nor faster
// than k_floor_min_bandwidth — a bound no CPU core streams past from flushed caches, which
// keeps an honest kernel safe when the calibration ran on a busy machine.
constexpr double k_floor_bandwidth_factor = 4.0;
constexpr double k_floor_min_bandwidth = 200e9;  // bytes per second

}  // namespace

bool CpuEvaluation::run_bench() {
  SharedArena& arena = *m_arena;
  RunnerSession& runner = *m_runner;
  const auto& list = m_spec.bench_workloads;
  const size_t count =
      size_t(std::count_if(list.begin(), list.end(), [&](const core::Workload& w) { return selected(w, true); }));
  const Stage stage = Stage::benchmark;
  size_t considered = 0;
  for (const auto& w : list) {
    if (!selected(w, true)) continue;
    ++considered;
    if (m_progress) m_progress(workload_progress(stage, w, true, "", 0, considered, count));
    core::WorkloadResult& res = add_result(w, true);
    WorkloadHarness h(m_spec, *m_variant, *m_reference, arena, runner, w, res);
    // Every failure here stops at once.
    auto record = [&](const CheckFailure& f) {
      res.correct = false;
      return fail_check(f);
    };
    if (auto f = h.prepare()) return fail_check(*f);
    // Bench workloads: the first (realistic) distribution.
    h.load_inputs(m_spec.distributions[0], m_seeds.next());
    std::optional<CheckFailure> check = h.run_and_verify(m_seeds.next());
    if (!check) check = h.check_determinism(m_seeds.next());
    if (check) return record(*check);
    if (!m_opt.benchmark) continue;
    BenchmarkConfig cfg;
    cfg.budget_ms = m_opt.time_budget_ms;
    cfg.flush_bytes = m_device.llc_bytes * 2;
    cfg.command_timeout_ms = m_opt.run_timeout_ms;
    if (m_progress)
      cfg.on_round = [&](size_t n) { m_progress(workload_progress(stage, w, true, "", n, considered, count)); };
    RelativeStderrCriterion criterion;
    core::TimeStats stats;
    auto fresh = [&] {
      h.load_inputs(m_spec.distributions[0], m_seeds.next());
      arena.arm_guards(m_seeds.next());
    };
    arena.arm_guards(m_seeds.next());
    m_watch.sample();
    if (auto f = time_workload(w, h, cfg, criterion, fresh, stats)) return record(*f);
    m_watch.sample();
    if (auto s = runner.command({{"op", "stats"}}, m_opt.run_timeout_ms, "reading timing statistics"))
      stats.discarded = s->value("discarded", 0);
    res.time = stats;
    res.roofline = workload_roofline(*m_variant, w, stats.median_ns, m_device.copy_bytes_per_s);
    // The CPU calibration measures one thread's copy bandwidth only: the memory roof is the one there is.
    res.feedback = roofline_feedback("default", *res.roofline, stats.median_ns, {{"calibrated", m_device.copy_bytes_per_s, 0}});
    const double floor_bw = std::max(m_device.copy_bytes_per_s * k_floor_bandwidth_factor, k_floor_min_bandwidth);
    double floor_ns = res.roofline->bytes / floor_bw * 1e9;
    if (stats.median_ns < floor_ns) {
      res.correct = false;
      fail(core::Status::rejected,
           fmt::format("workload {}: median {:.0f} ns is physically impossible: moving {:.0f} bytes needs at least "
                       "{:.0f} ns even at {:.0f} GB/s (the calibrated bandwidth is {:.2f} GB/s; is work skipped or "
                       "done outside the timed call?)",
                       w.name, stats.median_ns, res.roofline->bytes, floor_ns, floor_bw / 1e9,
                       m_device.copy_bytes_per_s / 1e9));
      return false;
    }
  }
  return true;
}

}  // namespace kwb::eval
