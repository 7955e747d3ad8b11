// The GPU session of a CudaEvaluation: started (or adopted) for validate, whose loop over every
// config on every test workload is BasicEvaluation::run_tests; then per bench workload every
// config checked and timed, the fastest reported.
#include <algorithm>

#include <fmt/format.h>

#include "core/timing_names.hpp"
#include "eval/benchmark.hpp"
#include "eval/cuda_evaluation.hpp"
#include "eval/roofline_position.hpp"
#include "util/fs.hpp"

namespace kwb::eval {

namespace {

// Physics floor (docs/evaluation.md "Anti-cheat rules", rule 5; docs/cuda.md "Device, calibration
// and roofline"): no kernel reads its inputs from DRAM (L2 is flushed before every sample) faster
// than max(1.1 x the calibrated copy bandwidth, the data-sheet bandwidth), nor does its flops
// faster than 1.1 x the highest peak the device has. Output writes can stay in L2 until after the
// timer stops, so up to one L2 of output bytes is not counted. A device with no data sheet has only
// its calibration, which a busy machine can read low: there the floor allows 4 x the calibrated
// rates (a skipped kernel is still orders of magnitude faster).
constexpr double k_floor_factor = 1.1;
constexpr double k_floor_factor_uncharted = 4.0;

// Adaptive stop of GPU timing: the mean's standard error under 0.15 % after at least 30 samples.
// GPU samples are cheap (a flush and the kernel, ~0.1 ms each) and scatter by 1-2 % on the H200;
// the CPU default (0.5 %, converged after ~20 samples) let the median of 10 evaluations of one
// kernel vary by up to 2.6 % (docs/benchmarks/h200.md "Timing fidelity"). The budget still caps it.
constexpr double k_gpu_max_stderr_pct = 0.15;
constexpr int k_gpu_min_samples = 30;
constexpr int k_gpu_min_timed_ms = 50;

size_t output_bytes(const WorkloadHarness& h) {
  size_t n = 0;
  for (const auto& s : h.slots())
    if (s.role != core::Role::in) n += s.bytes;
  return n;
}

bool uses_low_precision(const core::Variant& v) {
  for (const auto& [name, t] : v.dtypes)
    if (t == core::DType::bf16 || t == core::DType::f16) return true;
  return false;
}

}  // namespace

bool CudaEvaluation::start_runner() {
  if (!m_session) {  // the sandbox and the driver's start, reported apart from validation (stage_ms)
    auto t = std::chrono::steady_clock::now();
    auto s = start_gpu_session(session_options("the candidate"));
    if (!s) return fail(core::Status::error, s.error().what());
    m_session = std::move(*s);
    m_verdict.summary.stage_ms["runner_start"] =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
  }
  if (!m_session->device.value("present", false))
    return fail(core::Status::no_device, m_session->device.value("reason", std::string("no CUDA device")));
  m_arena = &*m_session->arena;
  m_runner = m_session->runner.get();
  m_runner->reset_busy();  // stage_ms.runner counts this evaluation's commands, not the start-up's
  if (m_cuda.clock == "cupti" && may_time_with_cupti()) {
    auto c = m_runner->command({{"op", "clock"}, {"kind", "cupti"}}, m_opt.run_timeout_ms, "choosing the clock");
    if (c && c->value("clock", "") == "cupti") {
      m_verdict.device += " [clock: cupti]";  // part of the tuning records' identity
    } else {
      std::string why = c ? c->value("reason", std::string("unknown")) : c.error().reason;
      m_verdict.diagnostics.push_back(core::Diagnostic{m_cand.source_name, 0, 0, "note",
                                                       "gpu-clock cupti unavailable (" + why + "): timed with CUDA events",
                                                       "clock"});
    }
  }
  for (size_t i = 0; i < m_cubin_data.size(); ++i)
    if (!write_module(i, m_cubin_data[i])) return false;
  return true;
}

bool CudaEvaluation::write_module(size_t c, const std::string& data) {
  std::string name = module_file(c);  // the session's job folder is /job in its sandbox
  if (auto w = util::write_file_atomic(m_session->job / name, data); !w) return fail(core::Status::error, w.error().what());
  if (m_cubins.size() <= c) m_cubins.resize(c + 1);
  m_cubins[c] = "/job/" + name;
  return true;
}

bool CudaEvaluation::reset_modules() {
  m_cubins.clear();
  m_loaded.reset();
  for (size_t i = 0; i < m_cubin_data.size(); ++i)
    if (!write_module(i, m_cubin_data[i])) return false;
  return true;
}

bool CudaEvaluation::use_config(size_t c) {
  if (m_loaded == c) return true;
  if (!load_config(c, m_cubins[c])) return false;
  m_loaded = c;
  return true;
}

bool CudaEvaluation::run_bench() {
  for (const auto& w : m_spec.bench_workloads) {
    if (!w.runs_on(m_verdict.backend)) continue;
    if (!m_opt.bench.empty() && std::find(m_opt.bench.begin(), m_opt.bench.end(), w.name) == m_opt.bench.end())
      continue;
    core::WorkloadResult& res = m_verdict.workloads.emplace_back();
    res.name = w.name;
    res.kind = "bench";
    res.params = w.params;
    Reference& reference = reference_for(w, true);
    const bool on_gpu = &reference != m_reference.get();
    res.reference = on_gpu ? "gpu" : "cpu";
    WorkloadHarness h(m_spec, *m_variant, reference, *m_arena, *m_runner, w, res);
    h.overlap_reference(!on_gpu);  // the GPU reference shares the device: never while the candidate is timed
    h.account_to(&m_trusted);
    if (auto f = h.prepare()) return fail_check(*f);
    // Every config checked on the workload's inputs (one input set: later configs start from the
    // inputs, and the reference's expected outputs, the previous one verified).
    h.load_inputs(m_spec.distributions[0], m_seeds.next());
    for (size_t c = 0; c < m_configs.size(); ++c) {
      std::string label = m_configs.size() > 1 ? " [" + m_configs[c].label() + "]" : "";
      if (!use_config(c) || !send_dims(c, w)) return false;
      std::optional<CheckFailure> f = h.run_and_verify(m_seeds.next());
      if (!f) f = h.check_determinism(m_seeds.next());
      if (f) {
        res.correct = false;
        note_failing(w, c, true);
        return fail_check({f->status, f->reason + label});
      }
    }
    if (!m_opt.benchmark) continue;
    // Several configs: the winner chosen from round-robin blocks (config_choice.hpp), then timed
    // in a pass of its own (its reported time is never the minimum of noisy medians).
    size_t chosen = 0;
    if (m_configs.size() > 1) {
      auto choice = choose_config_for(w, h);
      if (!choice) return false;
      chosen = choice->winner;
      for (const auto& row : choice->rows)
        res.config_times.push_back({m_configs[row.config].label(), row.median_ns, row.vs_winner, row.low, row.high,
                                    std::string(core::config_label_name(row.label))});
    }
    const std::string label = m_configs.size() > 1 ? " [" + m_configs[chosen].label() + "]" : "";
    const std::string config = label.empty() ? "" : m_configs[chosen].label();
    if (!use_config(chosen) || !send_dims(chosen, w)) return false;
    if (m_progress) m_progress(workload_progress(Stage::benchmark, w, true, config, 0, 0, 0));
    BenchmarkConfig cfg;
    cfg.budget_ms = m_opt.time_budget_ms;
    cfg.min_timed_ms = k_gpu_min_timed_ms;
    cfg.flush_bytes = m_device.l2_bytes * 2;
    cfg.device_copies = true;
    cfg.command_timeout_ms = m_opt.run_timeout_ms;
    if (m_progress)
      cfg.on_round = [&](size_t n) { m_progress(workload_progress(Stage::benchmark, w, true, config, n, 0, 0)); };
    RelativeStderrCriterion criterion(k_gpu_max_stderr_pct, k_gpu_min_samples);
    core::TimeStats stats;
    auto fresh = [&] {
      h.load_inputs(m_spec.distributions[0], m_seeds.next());
      m_arena->arm_guards(m_seeds.next());
    };
    m_arena->arm_guards(m_seeds.next());
    // Timed by the bench timer: interleaved with the incumbent where there is one (one pass).
    if (auto bf = time_workload(w, h, cfg, criterion, fresh, stats)) {
      res.correct = false;
      return fail_check({bf->status, bf->reason + label});
    }
    stats.clock = core::timing_clock_name(core::TimingClock::cuda_event);
    if (auto s = m_runner->command({{"op", "stats"}}, m_opt.run_timeout_ms, "reading clock statistics")) {
      stats.discarded = s->value("discarded", 0);
      int by_cupti = s->value("cupti_samples", 0), by_event = s->value("event_samples", 0);
      if (by_cupti > 0)
        stats.clock = core::timing_clock_name(by_event > 0 ? core::TimingClock::mixed : core::TimingClock::cupti_kernel);
      if (by_cupti > 0 && by_event > 0)
        m_verdict.diagnostics.push_back(core::Diagnostic{
            m_cand.source_name, 0, 0, "note",
            fmt::format("{}{}: {} of {} samples timed by CUDA events: CUPTI missed launches in {} batch(es) "
                        "(the last: {} recorded)",
                        w.name, label, by_event, by_cupti + by_event, s->value("cupti_short_batches", 0),
                        s->value("cupti_short_detail", std::string("?"))),
            "clock"});
      stats.launch_overhead_ns = s->value("launch_overhead_ns", 0.0);
      stats.sm_clock_min_mhz = s->value("sm_clock_min_mhz", 0u);
      stats.sm_clock_max_mhz = s->value("sm_clock_max_mhz", 0u);
    }
    std::string timings;
    for (const auto& ct : res.config_times)
      timings += fmt::format("{}{}: {:.1f} us{}", timings.empty() ? "" : ", ", ct.config, ct.median_ns / 1e3,
                             core::parse_config_label(ct.label) == core::ConfigLabel::winner ? " (chosen)" : "");
    if (timings.empty()) timings = fmt::format("{:.1f} us", stats.median_ns / 1e3);
    const size_t best_config = chosen;
    res.time = stats;
    if (!time_by_graph(w, h, cfg, criterion, label, res)) return false;  // launch-bound ones (cuda_graph_check.cpp)
    m_best_config[w.name] = best_config;
    for (const auto& [k, v] : m_configs[best_config].values) res.params[k] = v;  // the config that gave this time
    core::RooflineResult r = workload_roofline(*m_variant, w, stats.median_ns, m_device.copy_bytes_per_s);
    double s = stats.median_ns * 1e-9;
    double flops_peak = uses_low_precision(*m_variant) ? m_device.sheet_tensor_bf16_flops : m_device.fma_flops_per_s;
    if (s > 0 && flops_peak > 0 && r.flops > 0) r.pct_flops = r.flops / s / flops_peak * 100.0;
    const double sheet_flops = uses_low_precision(*m_variant) ? m_device.sheet_tensor_bf16_flops : m_device.sheet_f32_flops;
    if (s > 0 && m_device.sheet_bytes_per_s > 0) r.pct_bw_sheet = r.bytes / s / m_device.sheet_bytes_per_s * 100.0;
    if (s > 0 && sheet_flops > 0 && r.flops > 0) r.pct_flops_sheet = r.flops / s / sheet_flops * 100.0;
    res.roofline = r;
    res.feedback = roofline_feedback(m_configs[best_config].label(), r, stats.median_ns,
                                     {{"calibrated", m_device.copy_bytes_per_s, flops_peak},
                                      {"data_sheet", m_device.sheet_bytes_per_s, sheet_flops}});
    const double factor = m_device.sheet_bytes_per_s > 0 ? k_floor_factor : k_floor_factor_uncharted;
    double fastest_flops = std::max({m_device.fma_flops_per_s * factor / k_floor_factor, m_device.sheet_tensor_bf16_flops, 1.0});
    double floor_bw = std::max(m_device.copy_bytes_per_s * factor, m_device.sheet_bytes_per_s);
    double floor_bytes = std::max(0.0, r.bytes - double(std::min(output_bytes(h), m_device.l2_bytes)));
    double floor_ns = std::max(floor_bw > 0 ? floor_bytes / floor_bw : 0.0, r.flops / (fastest_flops * k_floor_factor)) * 1e9;
    emit(Stage::benchmark, false, fmt::format("{}: {}", w.name, timings));
    if (stats.median_ns < floor_ns) {
      res.correct = false;
      return fail(core::Status::rejected,
                  fmt::format("workload {}: median {:.0f} ns is physically impossible: reading {:.0f} bytes from "
                              "memory and doing {:.0f} flops needs at least {:.0f} ns on {} ({:.0f} GB/s; is work "
                              "skipped?)",
                              w.name, stats.median_ns, floor_bytes, r.flops, floor_ns, m_device.name, floor_bw / 1e9));
    }
  }
  return true;
}

}  // namespace kwb::eval
