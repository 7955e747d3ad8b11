// The `cuda` form of a CUDA candidate (docs/cuda.md): kernels and a launch plan in comment lines.
// The plan is parsed and bound before anything compiles (every launch of every tunable config
// must be valid for every workload), the kernels are analysed with the plan's arguments, every
// config is compiled with NVRTC (PTX, cubin, SASS and compiler facts kept), and the runner
// loads each config's module and launches it with the dimensions the plan gives a workload.
#include "eval/cuda_plan_evaluation.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "analysis/analyzer.hpp"
#include "build/compiler_facts.hpp"
#include "eval/analysis_outcome.hpp"
#include "eval/cuda_facts.hpp"
#include "eval/gpu_failure.hpp"
#include "eval/plan_commands.hpp"
#include "spec/launch_plan.hpp"
#include "util/clock.hpp"
#include "util/hash.hpp"

namespace kwb::eval {

namespace {

using util::ms_since;

// "candidate.cu:3: kwb:launch: ..." -> a diagnostic at that line.
core::Diagnostic plan_diagnostic(const util::Error& e, const std::string& file) {
  core::Diagnostic d{file, 0, 0, "error", e.message, "launch-plan"};
  if (auto colon = e.where.rfind(':'); colon != std::string::npos && e.where.substr(0, colon) == file) {
    try {
      d.line = std::stoi(e.where.substr(colon + 1));
    } catch (...) {
    }
  }
  return d;
}

}  // namespace

CudaPlanEvaluation::CudaPlanEvaluation(const core::Spec& spec, ReferenceOpener reference, core::Candidate cand,
                                       EvalOptions opt, CudaOptions cuda, CudaDevice device, ProgressFn progress,
                                       std::shared_ptr<build::NvrtcCompiler> compiler)
    : CudaEvaluation(spec, std::move(reference), std::move(cand), std::move(opt), std::move(cuda), std::move(device),
                     std::move(progress), std::move(compiler), core::Backend::cuda) {}

std::string CudaPlanEvaluation::module_file(size_t c) const { return fmt::format("config-{}.cubin", c); }

bool CudaPlanEvaluation::analyze() {
  auto t = std::chrono::steady_clock::now();
  emit(Stage::analyze, false);
  const std::string& file = m_cand.source_name;
  auto plan = spec::parse_launch_plan(m_cand.source, file);
  if (!plan) {
    m_verdict.diagnostics.push_back(plan_diagnostic(plan.error(), file));
    return fail(core::Status::rejected, plan.error().what());
  }
  m_plan = std::move(*plan);
  if (m_cand.variant.empty()) m_cand.variant = m_plan.variant;
  if (!resolve_variant(" (or add a `// kwb:variant NAME` line)") || !draw_test_workloads()) return false;
  if (auto r = spec::bind_launch_plan(m_plan, m_spec, file, m_variant); !r) {
    m_verdict.diagnostics.push_back(plan_diagnostic(r.error(), file));
    return fail(core::Status::rejected, r.error().what());
  }
  m_configs = spec::tune_configs(m_plan);
  m_search = m_configs.size() > spec::k_max_tune_configs;  // searched on the device (docs/tuning.md)
  core::LaunchLimits limits;
  if (m_device.present && m_device.max_smem_optin > 0) limits.max_smem_bytes = m_device.max_smem_optin;
  // Every launch of every config must be valid for every workload (drawn ones too) before
  // anything compiles.
  using List = const std::vector<core::Workload>*;
  for (List list : {List(&m_test_workloads), List(&m_spec.bench_workloads)})
    for (const auto& w : *list) {
      if (!w.runs_on(core::Backend::cuda)) continue;
      for (const auto& c : m_configs) {
        auto dims = spec::resolve_launches(m_plan, c, w.params, file, w.name, limits);
        util::Result<int64_t> ws = dims ? spec::resolve_workspace(m_plan, c, w.params, file, w.name, limits)
                                        : util::Result<int64_t>(0);
        const util::Error* e = !dims ? &dims.error() : !ws ? &ws.error() : nullptr;
        if (e) {
          m_verdict.diagnostics.push_back(plan_diagnostic(*e, file));
          return fail(core::Status::rejected, e->what());
        }
      }
    }
  if (!open_spec_reference()) return false;
  std::string analysed;
  if (!static_analysis(analysed, t)) return false;
  emit(Stage::analyze, true,
       fmt::format("variant {}, {} launch(es), {} config(s), {}", m_variant->name, m_plan.launches.size(),
                   m_configs.size(), analysed));
  return true;
}

bool CudaPlanEvaluation::static_analysis(std::string& summary, std::chrono::steady_clock::time_point stage_start) {
  // docs/analysis.md: the kernels are checked against the bound launch plan, with the first
  // config's -D flags (then the candidate's, as NVRTC gets them). An error finding rejects the
  // candidate before anything compiles (a clang parse error is a compile_error). Where analysis
  // is unavailable (no libclang, worker or CUDA headers), the candidate goes on with a note: a
  // `cuda` candidate is device code only, run in the sandboxed runner, whose host side is trusted.
  std::vector<std::string> flags = m_configs.empty() ? std::vector<std::string>{}
                                                      : spec::config_defines(m_configs.front());
  flags.insert(flags.end(), m_cand.flags.begin(), m_cand.flags.end());
  analysis::Request request{m_spec, *m_variant, m_verdict.backend, m_cand.source, m_cand.source_name, {}, std::move(flags)};
  request.launches = analysis::launches_of(m_plan);
  auto outcome = analyze_source(std::move(request),
                                "cuda candidates are allowed without it: their code runs only on the device, in "
                                "the sandboxed runner",
                                stage_start);
  summary = outcome.summary;
  if (outcome.failed) return fail(*outcome.failed, outcome.reason);
  return true;
}

bool CudaPlanEvaluation::compile_candidate() {
  auto t = std::chrono::steady_clock::now();
  emit(Stage::compile, false);
  nvrtc();
  std::vector<build::CudaCompileRequest> reqs;
  // A searched space compiles its first config here (the source must compile), the rest in the
  // search's batches (cuda_plan_search.cpp).
  for (size_t c = 0; c < (m_search ? 1 : m_configs.size()); ++c)
    reqs.push_back({m_cand.source, m_cand.source_name, spec::config_defines(m_configs[c]), m_cand.flags});
  auto results = m_compiler->compile_all(reqs);
  record_toolchain(m_compiler->identity());
  m_verdict.summary.stage_ms["compile"] = ms_since(t);
  if (!results) return fail(core::Status::error, results.error().what());
  double nvrtc_ms = 0;
  int cached = 0;
  for (size_t i = 0; i < results->size(); ++i) {
    auto& r = (*results)[i];
    nvrtc_ms = std::max(nvrtc_ms, r.wall_ms);
    cached += r.cached;
    std::string label = m_configs.size() > 1 ? m_configs[i].label() + ": " : "";
    if (!r.ok) {
      if (r.internal) return fail(core::Status::error, label + r.reason);
      m_verdict.diagnostics = r.diagnostics;
      return fail_build(r.timed_out, label + r.reason);
    }
    if (i == 0)
      for (auto& d : r.diagnostics) m_verdict.diagnostics.push_back(d);  // warnings of the first config
    add_compiler_facts(i, r);
    m_ptx_data.push_back(std::move(r.ptx));
    m_cubin_data.push_back(std::move(r.cubin));
    m_l2_policy.push_back(r.l2_policy);
    if (m_search) m_compiled[i] = {m_cubin_data.back(), m_ptx_data.back(), r.l2_policy, m_verdict.compiler_facts.back()};
  }
  for (size_t i = 0; i < m_l2_policy.size(); ++i)
    if (!m_l2_policy[i].empty()) {
      m_verdict.diagnostics.push_back(core::Diagnostic{
          m_cand.source_name, 0, 0, "note",
          "the code sets L2 eviction policies (PTX `" + m_l2_policy[i] +
              "`): lines it marks evict_last could stay in L2 across the flush between timed samples, so each of "
              "its samples waits for the device and resets persisting L2 lines first (docs/cuda.md, \"Persisting "
              "L2 lines\")",
          "l2-cache-policy"});
      break;
    }
  add_sass();
  m_verdict.summary.stage_ms["nvrtc"] = nvrtc_ms;
  m_verdict.summary.compile_cache = m_compiler->options().cache_dir.empty() ? "off"
                                    : cached == int(results->size())         ? "hit"
                                                                             : "miss";
  emit(Stage::compile, true,
       fmt::format("{}, {} config(s){} ({} cached), {:.0f} ms", m_compiler->identity(), results->size(),
                   m_search ? fmt::format(" of a space of {} to search", m_configs.size()) : "", cached, ms_since(t)));
  return true;
}

void CudaPlanEvaluation::add_compiler_facts(size_t c, const build::CudaCompileResult& r) {
  std::vector<std::string> kernels;
  for (const auto& l : m_plan.launches) kernels.push_back(l.kernel);
  auto facts = build::config_facts(m_configs[c].label(), arch(), r.log, r.ptx, kernels);
  facts.ptx_sha256 = util::sha256_hex(r.ptx);
  facts.cubin_sha256 = util::sha256_hex(r.cubin);
  core::LaunchLimits limits;
  if (m_device.present && m_device.max_smem_optin > 0) limits.max_smem_bytes = m_device.max_smem_optin;
  add_occupancy(facts, m_plan, m_configs[c], m_spec.bench_workloads, m_cand.source_name, limits);
  m_verdict.compiler_facts.push_back(std::move(facts));
}

std::vector<Artifact> CudaPlanEvaluation::artifacts() const {
  std::vector<Artifact> out;
  for (size_t c = 0; c < m_cubin_data.size() && c < m_ptx_data.size(); ++c) {
    out.push_back({"ptx", m_configs[c].label(), m_ptx_data[c]});
    out.push_back({"cubin", m_configs[c].label(), m_cubin_data[c]});
    if (c < m_sass_data.size() && !m_sass_data[c].empty()) out.push_back({"sass", m_configs[c].label(), m_sass_data[c]});
  }
  return out;
}

bool CudaPlanEvaluation::load_config(size_t c, const std::string& module) {
  const bool strict_l2 = c < m_l2_policy.size() && !m_l2_policy[c].empty();
  auto r = m_runner->command(load_module_command(m_plan, module, strict_l2), m_opt.run_timeout_ms,
                             "loading the module");
  if (!r) {
    auto f = classify_gpu_failure(r.error().status, r.error().reason);
    return fail(f.status, (m_configs.size() > 1 ? m_configs[c].label() + ": " : "") + f.reason);
  }
  if (c < m_verdict.compiler_facts.size() && !m_verdict.compiler_facts[c].kernels.empty() &&
      !m_verdict.compiler_facts[c].kernels.front().runner)
    if (auto why = add_runner_attributes(m_verdict.compiler_facts[c], m_plan, *r); !why.empty())
      m_verdict.diagnostics.push_back(core::Diagnostic{m_cand.source_name, 0, 0, "note",
                                                       "compiler facts without the driver's view: " + why,
                                                       "compiler-facts"});
  return true;
}

bool CudaPlanEvaluation::send_dims(size_t c, const core::Workload& w) {
  core::LaunchLimits limits;
  if (m_device.max_smem_optin > 0) limits.max_smem_bytes = m_device.max_smem_optin;
  auto dims = dims_command(m_plan, m_configs[c], w.params, m_cand.source_name, w.name, limits);
  if (!dims) return fail(core::Status::rejected, dims.error().what());
  auto r = m_runner->command(*dims, m_opt.run_timeout_ms, "setting the launch dimensions");
  if (!r) return fail_check({r.error().status, "workload " + w.name + ": " + r.error().reason});
  if (c < m_verdict.compiler_facts.size()) add_runner_occupancy(m_verdict.compiler_facts[c], m_plan, *dims, *r);
  return true;
}

}  // namespace kwb::eval
