#include "eval/cuda_evaluation.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "eval/device_lane.hpp"
#include "eval/gpu_failure.hpp"
#include "util/clock.hpp"

namespace kwb::eval {

namespace {

using util::ms_since;

}  // namespace

CudaEvaluation::CudaEvaluation(const core::Spec& spec, ReferenceOpener reference, core::Candidate cand,
                               EvalOptions opt, CudaOptions cuda, CudaDevice device, ProgressFn progress,
                               std::shared_ptr<build::NvrtcCompiler> compiler, core::Backend backend)
    : BasicEvaluation(spec, std::move(reference), std::move(cand), std::move(opt), std::move(progress),
                      backend),
      m_cuda(std::move(cuda)), m_device(std::move(device)), m_compiler(std::move(compiler)) {
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
  bool ok = compile_candidate();
  return ok && (!wants_gpu_reference() || compile_gpu_reference());
}

bool CudaEvaluation::validate() {
  auto t = std::chrono::steady_clock::now();
  emit(Stage::validate, false);
  if (!m_device.present)
    return fail(core::Status::no_device,
                m_device.reason + fmt::format("; the candidate compiled for {} ({} config(s))", arch(),
                                              m_configs.size()));
  bool ok = start_runner() && open_gpu_reference() && search_tunable_space() && run_tests() && check_graphs();
  m_verdict.summary.stage_ms["validate"] = ms_since(t);
  if (!ok) sanitize_first_failure();  // where it went wrong (docs/profiles.md "Sanitizer")
  if (ok) emit(Stage::validate, true);
  return ok;
}

bool CudaEvaluation::benchmark() {
  auto t = std::chrono::steady_clock::now();
  emit(Stage::benchmark, false);
  bool ok = run_bench();
  m_verdict.summary.stage_ms["benchmark"] = ms_since(t);
  if (!ok) sanitize_first_failure();
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
  // A profile asked for: a pass of its own after the timing (docs/profiles.md).
  if (ok && m_cand.profile) profile_bench_workloads();
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
  cfg.freeze = host_code_in_runner();
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
