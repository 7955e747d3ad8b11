// CUDA graphs in a CUDA evaluation (docs/cuda.md "CUDA graphs"; the runner's side is
// sandbox/gpu_runner/graph_replay.cpp). Deployed kernels often run inside captured graphs, where a
// launch that only works when made eagerly (host code that checks whether its stream is captured,
// a kernel that stops working after some launches) would go unnoticed by eager checks.
//  - Validation: after the eager checks, each config's plan is captured into a graph on one test
//    workload (the one with the largest param the validation ran) and replayed on fresh inputs whose expected outputs
//    the trusted reference computes on its own (never the eager run's outputs: a replay compared
//    with itself proves nothing); the outputs were poisoned before the replay, which is all that
//    writes them. A graph without a kernel node, or a plan that cannot be captured, is refused.
//  - Benchmark: a launch-bound bench workload (its eager median at most k_launch_bound_ns) is
//    timed again by graph replay in the same harness, under the same stopping rule and budget,
//    each round's last replay verified; the verdict's row gets it as `time_graph`.
#include <algorithm>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "core/timing_names.hpp"
#include "eval/cuda_evaluation.hpp"
#include "eval/gpu_failure.hpp"
#include "eval/stats.hpp"

namespace kwb::eval {

namespace {

// Launch-bound: a host launches a kernel in ~2-5 us (docs/cuda.md "CUDA graphs"), so at an eager
// median of 50 us the launches cost at least ~5 % of the time where a deployment launches eagerly;
// a graph pays it once for the whole plan.
constexpr double k_launch_bound_ns = 50'000;
constexpr int k_graph_calls_per_round = 32;

// The arena as a call starts from it: inputs as loaded, outputs poisoned (0xFF), guards armed.
void poison_and_arm(SharedArena& arena, const WorkloadHarness& h, uint64_t guard_seed) {
  for (const auto& s : h.slots())
    if (s.role == core::Role::out) std::memset(arena.data(s), 0xff, s.bytes);
  arena.arm_guards(guard_seed);
}

}  // namespace

bool CudaEvaluation::check_graphs() {
  // The published test workload with the largest param (drawn ones only where none is published):
  // the same one in every evaluation of the spec.
  const core::Workload* w = nullptr;
  int64_t most = 0;
  for (const auto& t : m_test_workloads) {
    if (!selected(t, false) || (w && !w->drawn && t.drawn)) continue;
    int64_t largest = 0;
    for (const auto& [k, v] : t.params) largest = std::max(largest, v);
    if (!w || (w->drawn && !t.drawn) || largest > most) w = &t, most = largest;
  }
  if (!w) return true;
  auto row = std::find_if(m_verdict.workloads.begin(), m_verdict.workloads.end(),
                          [&](const core::WorkloadResult& r) { return r.kind == "test" && r.name == w->name; });
  if (row == m_verdict.workloads.end()) return true;
  for (size_t c = 0; c < m_configs.size(); ++c) {
    const std::string label = m_configs.size() > 1 ? " [" + m_configs[c].label() + "]" : "";
    if (!use_config(c)) return false;
    // The row's checks and errors stay the eager validation's; a failure marks it.
    core::WorkloadResult scratch = *row;
    WorkloadHarness h(m_spec, *m_variant, *m_reference, *m_arena, *m_runner, *w, scratch);
    configure_test_harness(h);
    h.place_at_least_alignment(true);
    if (auto f = h.prepare()) return fail_check(*f);
    if (!send_dims(c, *w)) return false;
    h.load_inputs(m_spec.distributions[0], m_seeds.next());
    poison_and_arm(*m_arena, h, m_seeds.next());
    auto r = m_runner->command({{"op", "graph"}, {"replays", 2}}, m_opt.run_timeout_ms, "replaying the CUDA graph");
    if (!r) {
      // A plan the driver could not capture or instantiate (a launcher's host code doing what a
      // capture forbids, a driver without graphs) is said, not judged: the eager checks stand and
      // the kernel is not graph-deployable as it is. An empty graph, a fault or a wrong replay is.
      const std::string& why = r.error().reason;
      if (why.find("gave an empty graph") == std::string::npos &&
          (why.starts_with("[graph] capturing") || why.starts_with("[graph] instantiating") ||
           why.find("(CUDA graphs)") != std::string::npos)) {
        m_verdict.diagnostics.push_back(core::Diagnostic{
            m_cand.source_name, 0, 0, "warning",
            fmt::format("not checked under a CUDA graph{}: {} (docs/cuda.md \"CUDA graphs\")", label,
                        classify_gpu_failure(r.error().status, why).reason),
            "cuda-graph"});
        continue;
      }
      row->correct = false;
      auto f = classify_gpu_failure(r.error().status, why);
      return fail(f.status, fmt::format("workload {}{}: {}", w->name, label, f.reason));
    }
    if (auto f = h.verify(" (after a CUDA graph replay)")) {
      row->correct = false;
      row->first_mismatch = scratch.first_mismatch;
      row->mismatches = scratch.mismatches;
      f->reason += label +
                   "; the same plan launched eagerly was correct: captured into a CUDA graph and replayed, it computes "
                   "something else (docs/cuda.md \"CUDA graphs\")";
      return fail_check(*f);
    }
  }
  emit(Stage::validate, false,
       fmt::format("CUDA graph replay verified on {} ({} config(s))", w->name, m_configs.size()));
  return true;
}

bool CudaEvaluation::time_by_graph(const core::Workload& w, WorkloadHarness& h, const BenchmarkConfig& cfg,
                                   const StoppingCriterion& criterion, const std::string& label,
                                   core::WorkloadResult& res) {
  if (!res.time || res.time->median_ns > k_launch_bound_ns) return true;
  std::vector<double> samples;
  double timed_s = 0;
  std::string stop;
  while (stop.empty()) {
    poison_and_arm(*m_arena, h, m_seeds.next());
    auto t = std::chrono::steady_clock::now();
    auto r = m_runner->command({{"op", "graph_time"}, {"calls", k_graph_calls_per_round}, {"flush_bytes", cfg.flush_bytes}},
                               cfg.command_timeout_ms, "timing by CUDA graph replay");
    timed_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    if (!r) {  // reported, never decided on: the eager timing stands (docs/cuda.md "CUDA graphs")
      auto f = classify_gpu_failure(r.error().status, r.error().reason);
      if (f.status == core::Status::crashed || f.status == core::Status::time_limit) {
        res.correct = false;
        return fail(f.status, fmt::format("workload {}{} (timed by CUDA graph replay): {}", w.name, label, f.reason));
      }
      m_verdict.diagnostics.push_back(core::Diagnostic{m_cand.source_name, 0, 0, "note",
                                                       fmt::format("{}{}: no CUDA graph timing: {}", w.name, label, f.reason),
                                                       "cuda-graph"});
      return true;
    }
    const auto& ns = r->contains("ns") ? (*r)["ns"] : nlohmann::json();
    if (!ns.is_array() || ns.size() != size_t(k_graph_calls_per_round))
      return fail(core::Status::error, fmt::format("workload {}: the GPU runner's graph timing reply has no "
                                                   "{} samples: {}", w.name, k_graph_calls_per_round, r->dump()));
    for (const auto& v : ns) samples.push_back(v.is_number() ? v.get<double>() : 0.0);
    if (auto f = h.verify(" (after timing by CUDA graph replay)")) {
      res.correct = false;
      return fail_check({f->status, f->reason + label});
    }
    if (auto why = timing_stop(samples, timed_s, cfg, criterion)) stop = core::timing_stop_name(*why);
  }
  core::TimeStats stats = summarize(samples);
  stats.stop_reason = stop;
  stats.timed_ms = timed_s * 1000.0;
  stats.clock = core::timing_clock_name(core::TimingClock::cuda_event);
  if (auto s = m_runner->command({{"op", "stats"}}, m_opt.run_timeout_ms, "reading clock statistics")) {
    int by_cupti = s->value("cupti_samples", 0), by_event = s->value("event_samples", 0);
    if (by_cupti > 0)
      stats.clock = core::timing_clock_name(by_event > 0 ? core::TimingClock::mixed : core::TimingClock::cupti_kernel);
    stats.launch_overhead_ns = s->value("launch_overhead_ns", 0.0);
    stats.sm_clock_min_mhz = s->value("sm_clock_min_mhz", 0u);
    stats.sm_clock_max_mhz = s->value("sm_clock_max_mhz", 0u);
  }
  emit(Stage::benchmark, false,
       fmt::format("{}: {:.1f} us by CUDA graph replay ({:.1f} us eager)", w.name, stats.median_ns / 1e3,
                   res.time->median_ns / 1e3));
  res.time_graph = std::move(stats);
  return true;
}

}  // namespace kwb::eval
