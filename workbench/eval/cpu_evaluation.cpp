#include "eval/cpu_evaluation.hpp"

#include <fmt/format.h>

#include "analysis/analyzer.hpp"
#include "eval/analysis_outcome.hpp"
#include "eval/cpu_placement.hpp"
#include "util/clock.hpp"
#include "util/fs.hpp"

namespace kwb::eval {

namespace {

using util::ms_since;

}  // namespace

CpuEvaluation::CpuEvaluation(const core::Spec& spec, ReferenceOpener reference, core::Candidate cand,
                             EvalOptions opt, CpuDevice device, ProgressFn progress)
    : BasicEvaluation(spec, std::move(reference), std::move(cand), std::move(opt), std::move(progress),
                      core::Backend::cpu),
      m_device(std::move(device)) {
  m_verdict.device = m_device.name + ", " + std::to_string(m_opt.threads) + " thread" + (m_opt.threads == 1 ? "" : "s");
}

CpuEvaluation::~CpuEvaluation() {
  m_own_runner.reset();
  std::error_code ec;
  if (!m_job.empty() && !m_opt.keep_job) std::filesystem::remove_all(m_job, ec);
}

void CpuEvaluation::cancel() {
  std::lock_guard lock(m_runner_mutex);
  m_cancelled = true;
  if (m_own_runner) m_own_runner->kill();
}

bool CpuEvaluation::analyze() {
  // Resolves the variant, then static analysis (docs/analysis.md): an error finding rejects the
  // candidate before it is compiled (a clang parse error is a compile_error); where libclang is
  // absent, CPU candidates go on with a note (they still run only in the sandbox).
  auto t = std::chrono::steady_clock::now();
  emit(Stage::analyze, false);
  if (!resolve_variant() || !draw_test_workloads() || !open_spec_reference()) return false;
  auto outcome = analyze_source({m_spec, *m_variant, m_verdict.backend, m_cand.source, m_cand.source_name, {}, m_cand.flags},
                                "cpu candidates are allowed without it: they run only in the sandbox", t);
  if (outcome.failed) return fail(*outcome.failed, outcome.reason);
  emit(Stage::analyze, true, fmt::format("variant {}, {}", m_variant->name, outcome.summary));
  return true;
}

bool CpuEvaluation::compile() {
  auto t = std::chrono::steady_clock::now();
  emit(Stage::compile, false);
  auto toolchain = build::CpuToolchain::detect(m_opt.cxx);
  if (!toolchain) return fail(core::Status::error, toolchain.error().what());
  m_toolchain = *toolchain;
  record_toolchain(m_toolchain->identity(), m_toolchain->base_flags());
  auto job = util::make_unique_dir(m_opt.workspace / "jobs", "job-");
  if (!job) return fail(core::Status::error, job.error().what());
  m_job = *job;
  build::CompileRequest req{m_cand.source, m_cand.source_name, m_job, m_cand.flags, m_opt.bwrap,
                            m_opt.compile_timeout_ms,
                            m_opt.compile_cache ? m_opt.workspace / "cache" / "cpu" : std::filesystem::path()};
  req.vectorization_remarks = true;  // notes on the loops it did not vectorise (docs/verdict.md)
  auto compiled = m_toolchain->compile(req);
  m_verdict.summary.stage_ms["compile"] = ms_since(t);
  if (!compiled) return fail(core::Status::error, compiled.error().what());
  m_verdict.diagnostics.insert(m_verdict.diagnostics.end(), compiled->diagnostics.begin(), compiled->diagnostics.end());
  m_verdict.diagnostics.insert(m_verdict.diagnostics.end(), compiled->remarks.begin(), compiled->remarks.end());
  if (!compiled->ok) return fail_build(compiled->timed_out, compiled->reason);
  m_object = compiled->object_inside;
  m_verdict.summary.compile_cache = compile_cache_state(compiled->cache_hit);
  emit(Stage::compile, true,
       fmt::format("{}, {:.0f} ms{}", m_toolchain->identity(), ms_since(t), compiled->cache_hit ? " (cache hit)" : ""));
  return true;
}

bool CpuEvaluation::start_runner() {
  auto arena = SharedArena::create();
  if (!arena) return fail(core::Status::error, arena.error().what());
  m_own_arena.emplace(std::move(*arena));
  m_arena = &*m_own_arena;
  RunnerConfig cfg{m_opt.runner, m_opt.bwrap, m_job, m_opt.threads, m_opt.run_timeout_ms, m_opt.run_memory_bytes};
  // The session may also be timed against the incumbent in the decide stage (at least
  // min_blocks block pairs per bench workload): the run profile's 30 s of CPU stopped slow
  // incumbents there. Every command still has its own timeout; this is the session's backstop.
  cfg.cpu_seconds = 300;
  // The same buffer addresses and one core per timing batch in every timed CPU runner, so two
  // runner processes of the same code time alike (cpu_placement.hpp; issue #32).
  cfg.arena_address = k_timed_arena_address;
  cfg.pin_while_timed = true;
  auto t = std::chrono::steady_clock::now();
  auto runner = RunnerSession::start(cfg, *m_arena);
  if (!runner) return fail(core::Status::error, runner.error().what());
  m_verdict.summary.stage_ms["runner_start"] = ms_since(t);  // the sandbox's share, reported apart
  {
    std::lock_guard lock(m_runner_mutex);
    m_own_runner = std::move(*runner);
    m_runner = m_own_runner.get();
    if (m_cancelled) m_runner->kill();
  }
  if (auto r = m_runner->load(m_object, m_variant->entry); !r) return fail(r.error().status, r.error().reason);
  return true;
}

bool CpuEvaluation::validate() {
  auto t = std::chrono::steady_clock::now();
  emit(Stage::validate, false);
  bool ok = start_runner() && run_tests();
  m_verdict.summary.stage_ms["validate"] = ms_since(t);
  if (ok) emit(Stage::validate, true);
  return ok;
}

bool CpuEvaluation::benchmark() {
  auto t = std::chrono::steady_clock::now();
  emit(Stage::benchmark, false);
  // The runner stays open: the decide stage may time it against the incumbent (timing_subject()).
  bool ok = run_bench();
  m_verdict.summary.stage_ms["benchmark"] = ms_since(t);
  if (ok) emit(Stage::benchmark, true);
  return ok;
}

void CpuEvaluation::add_decide_notes() {
  // Comparison with the incumbent's tuning records arrives with the library issue.
  if (!m_opt.benchmark) return;
  m_verdict.summary.machine = m_watch.state();
  if (m_verdict.summary.machine->busy)
    m_verdict.diagnostics.push_back(core::Diagnostic{m_cand.source_name, 0, 0, "warning",
                                                     "busy machine during timing (" +
                                                         m_verdict.summary.machine->detail +
                                                         "): figures may be noisy; decisions widen their intervals",
                                                     "machine-busy"});
}

std::string CpuEvaluation::median_text(double median_ns) const { return fmt::format("{:.3f} ms", median_ns / 1e6); }

void CpuEvaluation::configure_timing(TimingSubjectConfig& cfg) {
  cfg.flush_bytes = m_device.llc_bytes * 2;
  cfg.freeze = false;  // the trusted CPU timing charges the runner's CPU between commands (timing_subject.hpp)
}

}  // namespace kwb::eval
