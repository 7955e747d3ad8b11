#include "eval/cuda_evaluation.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "analysis/analyzer.hpp"
#include "build/compiler_facts.hpp"
#include "eval/analysis_outcome.hpp"
#include "eval/cuda_facts.hpp"
#include "eval/device_lane.hpp"
#include "eval/gpu_failure.hpp"
#include "spec/launch_plan.hpp"
#include "util/fs.hpp"
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

CudaEvaluation::CudaEvaluation(const core::Spec& spec, ReferenceOpener reference, core::Candidate cand,
                               EvalOptions opt, CudaOptions cuda, CudaDevice device, ProgressFn progress,
                               std::shared_ptr<build::NvrtcCompiler> compiler)
    : BasicEvaluation(spec, std::move(reference), std::move(cand), std::move(opt), std::move(progress),
                      cand.backend == "cuda-launcher" ? "cuda-launcher" : "cuda"),
      m_launcher(m_cand.backend == "cuda-launcher"), m_cuda(std::move(cuda)), m_device(std::move(device)),
      m_compiler(std::move(compiler)) {
  m_verdict.device = m_device.describe();
}

CudaEvaluation::~CudaEvaluation() {
  m_gpu_reference.reset();
  if (m_reference_session.valid()) m_reference_session = {};  // a session never taken ends here
  if (m_reference_thread.joinable()) {
    m_reference_thread_release.set_value();
    m_reference_thread.join();
  }
}

CheckFailure CudaEvaluation::classify(const CheckFailure& f) const { return classify_gpu_failure(f.status, f.reason); }

std::string CudaEvaluation::config_label(size_t c) const {
  return m_configs.size() > 1 ? m_configs[c].label() : "";
}

void CudaEvaluation::configure_test_harness(WorkloadHarness& h) {
  h.overlap_reference(true);  // the reference runs while the GPU does
  h.account_to(&m_trusted);
}

std::string CudaEvaluation::arch() const {
  return !m_cuda.gpu_arch.empty() ? m_cuda.gpu_arch : m_device.arch();
}

bool CudaEvaluation::analyze() {
  if (m_launcher) return analyze_launcher();
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
  if (auto r = spec::bind_launch_plan(m_plan, m_spec, file); !r) {
    m_verdict.diagnostics.push_back(plan_diagnostic(r.error(), file));
    return fail(core::Status::rejected, r.error().what());
  }
  m_configs = spec::tune_configs(m_plan);
  core::LaunchLimits limits;
  if (m_device.present && m_device.max_smem_optin > 0) limits.max_smem_bytes = m_device.max_smem_optin;
  // Every launch of every config must be valid for every workload (drawn ones too) before
  // anything compiles.
  using List = const std::vector<core::Workload>*;
  for (List list : {List(&m_test_workloads), List(&m_spec.bench_workloads)})
    for (const auto& w : *list) {
      if (!w.runs_on("cuda")) continue;
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

bool CudaEvaluation::static_analysis(std::string& summary, std::chrono::steady_clock::time_point stage_start) {
  // docs/analysis.md: the kernels are checked against the bound launch plan, with the first
  // config's -D flags (then the candidate's, as NVRTC gets them). An error finding rejects the
  // candidate before anything compiles (a clang parse error is a compile_error). Where analysis
  // is unavailable (no libclang, worker or CUDA headers), the candidate goes on with a note: a
  // `cuda` candidate is device code only, run in the sandboxed runner, whose host side is trusted.
  std::vector<std::string> flags = m_configs.empty() ? std::vector<std::string>{}
                                                      : spec::config_defines(m_configs.front());
  flags.insert(flags.end(), m_cand.flags.begin(), m_cand.flags.end());
  analysis::Request request{m_spec, *m_variant, "cuda", m_cand.source, m_cand.source_name, {}, std::move(flags)};
  request.launches = analysis::launches_of(m_plan);
  auto outcome = analyze_source(std::move(request),
                                "cuda candidates are allowed without it: their code runs only on the device, in "
                                "the sandboxed runner",
                                stage_start);
  summary = outcome.summary;
  if (outcome.failed) return fail(*outcome.failed, outcome.reason);
  return true;
}

std::shared_ptr<build::NvrtcCompiler> CudaEvaluation::nvrtc() {
  if (!m_compiler) {
    build::NvrtcOptions o;
    o.worker = m_cuda.nvrtc_worker;
    o.bwrap = m_opt.bwrap;
    o.scratch_parent = m_opt.workspace / "jobs";
    if (m_opt.compile_cache) o.cache_dir = m_opt.workspace / "cache" / "cubin";
    o.arch = arch();
    o.timeout_ms = m_opt.compile_timeout_ms;
    o.max_workers = std::max(1, m_cuda.compile_workers);
    m_compiler = std::make_shared<build::NvrtcCompiler>(std::move(o));
  }
  return m_compiler;
}

GpuSessionOptions CudaEvaluation::session_options(const std::string& who) const {
  return on_device({m_cuda.gpu_runner, m_opt.bwrap, m_opt.workspace / "jobs", m_opt.run_timeout_ms, m_cuda.driver,
                    m_opt.keep_job, who},
                   m_device);
}

void CudaEvaluation::start_reference_session() {
  if (m_reference_session.valid() || m_reference_thread.joinable()) return;
  GpuSessionOptions o = session_options("the reference");
  std::promise<util::Result<std::unique_ptr<GpuSession>>> started;
  m_reference_session = started.get_future();
  m_reference_thread = std::thread([o, started = std::move(started), release = m_reference_thread_release.get_future()]() mutable {
    started.set_value(start_gpu_session(o));
    release.wait();  // the session's sandbox lives as long as this thread
  });
}

void CudaEvaluation::bind_lane(const DeviceLane& lane) {
  if (!m_device.present || !lane.device.present) return;
  if (!m_device.any_of_class && m_device.key == lane.device.key) return;  // there already (one GPU)
  m_device = lane.device;  // the same class: arch, limits and describe() are unchanged
  m_session.reset();       // started for another GPU, if any
  if (lane.sessions)
    if (auto s = lane.sessions->take()) m_session = std::move(s);
  // Deferred by compile() while the GPU was unknown.
  if (wants_gpu_reference()) start_reference_session();
}

void CudaEvaluation::bind_like(const Evaluation& other) {
  const auto* o = dynamic_cast<const CudaEvaluation*>(&other);
  if (!o || o->m_device.any_of_class) return;
  bind_lane(DeviceLane{o->m_device, nullptr});
}

bool CudaEvaluation::compile() {
  // The GPU reference's sandbox and driver start while the compiles run (once the GPU is known).
  if (wants_gpu_reference() && !m_device.any_of_class) start_reference_session();
  bool ok = m_launcher ? compile_launcher() : compile_candidate();
  return ok && (!wants_gpu_reference() || compile_gpu_reference());
}

bool CudaEvaluation::compile_candidate() {
  auto t = std::chrono::steady_clock::now();
  emit(Stage::compile, false);
  nvrtc();
  std::vector<build::CudaCompileRequest> reqs;
  for (const auto& c : m_configs)
    reqs.push_back({m_cand.source, m_cand.source_name, spec::config_defines(c), m_cand.flags});
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
       fmt::format("{}, {} config(s) ({} cached), {:.0f} ms", m_compiler->identity(), m_configs.size(), cached,
                   ms_since(t)));
  return true;
}

void CudaEvaluation::add_compiler_facts(size_t c, const build::CudaCompileResult& r) {
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

std::vector<Artifact> CudaEvaluation::artifacts() const {
  std::vector<Artifact> out;
  if (m_launcher) return out;
  for (size_t c = 0; c < m_cubin_data.size() && c < m_ptx_data.size(); ++c) {
    out.push_back({"ptx", m_configs[c].label(), m_ptx_data[c]});
    out.push_back({"cubin", m_configs[c].label(), m_cubin_data[c]});
    if (c < m_sass_data.size() && !m_sass_data[c].empty()) out.push_back({"sass", m_configs[c].label(), m_sass_data[c]});
  }
  return out;
}

bool CudaEvaluation::validate() {
  auto t = std::chrono::steady_clock::now();
  emit(Stage::validate, false);
  if (!m_device.present)
    return fail(core::Status::no_device,
                m_device.reason + fmt::format("; the candidate compiled for {} ({} config(s))", arch(),
                                              m_configs.size()));
  bool ok = start_runner() && open_gpu_reference() && run_tests();
  m_verdict.summary.stage_ms["validate"] = ms_since(t);
  if (ok) emit(Stage::validate, true);
  return ok;
}

bool CudaEvaluation::benchmark() {
  auto t = std::chrono::steady_clock::now();
  emit(Stage::benchmark, false);
  bool ok = run_bench();
  m_verdict.summary.stage_ms["benchmark"] = ms_since(t);
  if (m_runner) {
    m_verdict.summary.stage_ms["runner"] = m_runner->busy_ms();  // validate + benchmark
    for (const auto& [kind, ms] : m_runner->busy_by_kind()) m_verdict.summary.stage_ms["runner_" + kind] = ms;
    // Waiting for the GPU while another candidate's command ran on it (a lane of depth 2).
    if (m_runner->gate_wait_ms() > 0) m_verdict.summary.stage_ms["gpu_wait"] = m_runner->gate_wait_ms();
  }
  // The trusted side's share of validate + benchmark (the rest is the runner's and the launches').
  m_verdict.summary.stage_ms["inputs"] = m_trusted.inputs_ms;
  m_verdict.summary.stage_ms["reference_wait"] = m_trusted.reference_wait_ms;
  m_verdict.summary.stage_ms["checks"] = m_trusted.checks_ms;
  // The session stays open: the decide stage may time it against the incumbent (timing_subject()).
  if (ok) emit(Stage::benchmark, true);
  return ok;
}

std::string CudaEvaluation::checks_note() const { return fmt::format(", {} config(s)", m_configs.size()); }

std::string CudaEvaluation::judged_note() const {
  int on_gpu = int(std::count_if(m_verdict.workloads.begin(), m_verdict.workloads.end(),
                                 [](const core::WorkloadResult& w) { return w.reference == "gpu"; }));
  if (!on_gpu) return {};
  return fmt::format("; {} bench workload{} judged by the spec's GPU reference ({}), which agreed with reference.cpp "
                     "on every test workload",
                     on_gpu, on_gpu > 1 ? "s" : "", m_spec.gpu_reference->file);
}

std::string CudaEvaluation::median_text(double median_ns) const { return fmt::format("{:.1f} us", median_ns / 1e3); }

void CudaEvaluation::configure_timing(TimingSubjectConfig& cfg) {
  cfg.flush_bytes = m_device.l2_bytes * 2;
  cfg.device_copies = true;
  // Only a launcher's host code runs in its runner between commands; a cuda-form runner runs
  // nothing of the candidate's outside a command, so freezing it (a walk of /proc each time) for
  // every block of the other side guards nothing (timing_subject.hpp).
  cfg.freeze = m_launcher;
  // The config that won the workload in the benchmark stage, with its launch dimensions.
  cfg.setup = [this](const core::Workload& w) -> std::optional<CheckFailure> {
    // The config that won the workload here, else the one its tuning records name, else the first.
    size_t c = 0;
    if (auto it = m_best_config.find(w.name); it != m_best_config.end()) {
      c = it->second;
    } else if (auto hint = m_config_hints.find(w.name); hint != m_config_hints.end()) {
      for (size_t i = 0; i < m_configs.size(); ++i) {
        bool match = true;
        for (const auto& [k, value] : m_configs[i].values) {
          auto p = hint->second.find(k);
          match = match && p != hint->second.end() && p->second == value;
        }
        if (match) {
          c = i;
          break;
        }
      }
    }
    if (use_config(c) && send_dims(c, w)) return std::nullopt;
    return CheckFailure{m_verdict.status, m_verdict.reason};
  };
  cfg.reference_for = [this](const core::Workload& w) { return &reference_for(w, true); };
}

}  // namespace kwb::eval
