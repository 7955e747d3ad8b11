// A `cuda` candidate whose tunable space is larger than the grid (docs/tuning.md): searched on
// the device once the session is up (eval/config_search.hpp), on the first bench workload, its
// configs compiled in batches through the NVRTC workers; the evaluation then goes on with the
// finalists as with a grid (every one validated on every test workload, chosen per bench
// workload interleaved: docs/cuda.md "Choosing a config"). A note in the verdict's diagnostics
// lists the configs tried and why the search stopped.
#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "eval/config_search.hpp"
#include "eval/cuda_plan_evaluation.hpp"
#include "eval/stats.hpp"
#include "spec/launch_plan.hpp"

namespace kwb::eval {

namespace {

constexpr double k_block_ms = 5;  // each block of a race, as a grid's rounds (cuda_config_rounds.cpp)

}  // namespace

std::vector<double> CudaPlanEvaluation::occupancy_prior(const core::Workload& w) const {
  const double sms = m_device.sms > 0 ? m_device.sms : 132;
  const double smem_limit = m_device.max_smem_optin > 0 ? m_device.max_smem_optin : 227 * 1024;
  std::vector<double> out;
  for (const auto& c : m_configs) {
    auto dims = spec::resolve_launches(m_plan, c, w.params, m_cand.source_name, w.name);
    double predicted = 0;
    for (const auto& d : dims ? *dims : std::vector<core::LaunchDims>{}) {
      const double threads = double(d.block[0] * d.block[1] * d.block[2]);
      const double blocks = double(d.grid[0] * d.grid[1] * d.grid[2]);
      double per_sm = std::min(32.0, std::floor(2048.0 / std::max(threads, 32.0)));
      if (d.smem > 0) per_sm = std::min(per_sm, std::floor(smem_limit / double(d.smem)));
      per_sm = std::max(per_sm, 1.0);
      // Each launch's work spread over its blocks, run in waves; a partial wave costs a whole one,
      // and fewer resident warps hide less latency.
      const double waves = std::ceil(blocks / (sms * per_sm));
      const double occupancy = std::min(1.0, per_sm * threads / 2048.0);
      predicted += waves / blocks / std::sqrt(std::max(occupancy, 1.0 / 64));
    }
    out.push_back(dims ? predicted : 1e30);
  }
  return out;
}

std::vector<std::string> CudaPlanEvaluation::compile_batch(const std::vector<size_t>& batch) {
  std::vector<std::string> why(batch.size());
  std::vector<build::CudaCompileRequest> reqs;
  std::vector<size_t> at;
  for (size_t i = 0; i < batch.size(); ++i)
    if (!m_compiled.contains(batch[i])) {
      reqs.push_back({m_cand.source, m_cand.source_name, spec::config_defines(m_configs[batch[i]]), m_cand.flags});
      at.push_back(i);
    }
  if (reqs.empty()) return why;
  auto results = m_compiler->compile_all(reqs);
  for (size_t k = 0; k < at.size(); ++k) {
    const size_t c = batch[at[k]];
    if (!results) {
      why[at[k]] = results.error().what();
      continue;
    }
    auto& r = (*results)[k];
    if (!r.ok) {
      why[at[k]] = r.reason;
      continue;
    }
    const size_t facts_before = m_verdict.compiler_facts.size();
    add_compiler_facts(c, r);  // appends; moved into m_compiled below
    Compiled compiled{std::move(r.cubin), std::move(r.ptx), r.l2_policy, std::move(m_verdict.compiler_facts.back())};
    m_verdict.compiler_facts.resize(facts_before);
    if (!write_module(c, compiled.cubin)) {
      why[at[k]] = m_verdict.reason;
      continue;
    }
    m_compiled[c] = std::move(compiled);
  }
  return why;
}

bool CudaPlanEvaluation::search_tunable_space() {
  if (!m_search) return true;
  auto on = std::find_if(m_spec.bench_workloads.begin(), m_spec.bench_workloads.end(), [&](const core::Workload& w) {
    return w.runs_on(m_verdict.backend) &&
           (m_opt.bench.empty() || std::find(m_opt.bench.begin(), m_opt.bench.end(), w.name) != m_opt.bench.end());
  });
  if (on == m_spec.bench_workloads.end())
    return fail(core::Status::rejected, fmt::format("the tunable space holds {} configs, more than the grid's {}, and "
                                                    "is searched on a bench workload: the spec has none for this backend",
                                                    m_configs.size(), spec::k_max_tune_configs));
  const core::Workload& w = *on;
  const auto t0 = std::chrono::steady_clock::now();
  core::WorkloadResult scratch;
  WorkloadHarness h(m_spec, *m_variant, *m_reference, *m_arena, *m_runner, w, scratch);
  h.account_to(nullptr);
  if (auto f = h.prepare()) return fail_check(*f);
  h.load_inputs(m_spec.distributions[0], m_seeds.next());
  m_arena->arm_guards(m_seeds.next());
  std::map<size_t, int> calls;
  bool uploaded = false, failed = false;
  SearchHooks hooks;
  hooks.prepare = [&](const std::vector<size_t>& batch) { return compile_batch(batch); };
  hooks.block = [&](size_t c) -> std::optional<double> {
    if (!use_config(c) || !send_dims(c, w)) return failed = true, std::nullopt;
    int& n = calls.try_emplace(c, 2).first->second;
    const auto t = std::chrono::steady_clock::now();
    auto ns = m_runner->time(n, m_device.l2_bytes * 2, m_opt.run_timeout_ms, {.upload = !uploaded, .download = false});
    if (!ns) {
      fail_check({ns.error().status, ns.error().reason + " [" + m_configs[c].label() + "]"});
      return failed = true, std::nullopt;
    }
    uploaded = true;
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
    n = std::clamp(int(k_block_ms / std::max(1e-3, ms / n)), 1, 64);
    return median_of(std::vector<double>(ns->begin(), ns->end()));
  };
  SearchOptions opt;
  opt.seed = m_seeds.next();  // reproducible under a fixed --seed
  opt.budget = m_opt.search_budget;
  opt.batch = size_t(std::max(1, m_cuda.compile_workers));
  auto result = search_configs(eval::search_space(m_configs), occupancy_prior(w), opt, hooks);
  if (!result.ok || failed) return false;
  if (result.finalists.empty())
    return fail(core::Status::compile_error,
                fmt::format("the search tried {} configs and none compiled (the first: {}: {})", result.tried.size(),
                            result.tried.empty() ? "" : m_configs[result.tried.front().config].label(),
                            result.tried.empty() ? "" : result.tried.front().why));
  // The note: every config tried, and why the search stopped.
  size_t by[3] = {0, 0, 0};
  std::string tried;
  const double best_ns = std::max(1e-9, result.tried.empty() ? 1.0 : [&] {
    for (const auto& t : result.tried)
      if (t.config == result.best) return t.estimate_ns;
    return 1.0;
  }());
  for (const auto& t : result.tried) {
    ++by[int(t.outcome)];
    tried += fmt::format("{}{} {}", tried.empty() ? "" : "; ", m_configs[t.config].label(), tried_outcome_name(t.outcome));
    if (t.outcome == TriedOutcome::failed) tried += " (" + t.why.substr(0, 120) + ")";
    else tried += fmt::format(" {:.3f}x", t.estimate_ns / best_ns);
  }
  std::string finalists;
  for (size_t c : result.finalists) finalists += (finalists.empty() ? "" : ", ") + m_configs[c].label();
  m_verdict.diagnostics.push_back(core::Diagnostic{
      m_cand.source_name, m_plan.tunables.front().line, 0, "note",
      fmt::format("config search over a space of {} on workload {}: {} tried ({} timed, {} aborted as clearly "
                  "slower, {} failed to compile) in {:.0f} ms; stopped: {}; finalists: {} (docs/tuning.md); tried: {}",
                  m_configs.size(), w.name, result.tried.size(), by[0], by[1], by[2],
                  std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), result.stop,
                  finalists, tried),
      "config-search"});
  // The evaluation goes on with the finalists, as with a grid.
  std::vector<core::TuneConfig> configs;
  m_cubin_data.clear();
  m_ptx_data.clear();
  m_l2_policy.clear();
  m_verdict.compiler_facts.clear();
  for (size_t c : result.finalists) {
    auto& k = m_compiled.at(c);
    configs.push_back(m_configs[c]);
    m_cubin_data.push_back(std::move(k.cubin));
    m_ptx_data.push_back(std::move(k.ptx));
    m_l2_policy.push_back(k.l2_policy);
    m_verdict.compiler_facts.push_back(std::move(k.facts));
  }
  m_configs = std::move(configs);
  m_compiled.clear();
  m_search = false;
  add_sass();
  return reset_modules();
}

}  // namespace kwb::eval
