#include "eval/cpu_evaluation.hpp"

#include "eval/analysis_outcome.hpp"
#include "eval/choose_variant.hpp"

#include <fmt/format.h>

#include "analysis/analyzer.hpp"
#include "util/fs.hpp"
#include "util/clock.hpp"

namespace kwb::eval {

namespace {

using util::ms_since;

}  // namespace

CpuEvaluation::CpuEvaluation(const core::Spec& spec, ReferenceOpener reference, core::Candidate cand,
                             EvalOptions opt, CpuDevice device, ProgressFn progress)
    : m_spec(spec), m_open_reference(std::move(reference)), m_cand(std::move(cand)), m_opt(std::move(opt)),
      m_device(std::move(device)), m_progress(std::move(progress)), m_seeds(m_opt.seed),
      m_start(std::chrono::steady_clock::now()) {
  m_verdict.candidate = m_cand.id;
  m_verdict.op = spec.op;
  m_verdict.spec_version = spec.version;
  m_verdict.backend = "cpu";
  m_verdict.device = m_device.name + ", " + std::to_string(m_opt.threads) + " thread" + (m_opt.threads == 1 ? "" : "s");
}

CpuEvaluation::~CpuEvaluation() {
  m_runner.reset();
  std::error_code ec;
  if (!m_job.empty() && !m_opt.keep_job) std::filesystem::remove_all(m_job, ec);
}

void CpuEvaluation::cancel() {
  std::lock_guard lock(m_runner_mutex);
  m_cancelled = true;
  if (m_runner) m_runner->kill();
}

void CpuEvaluation::emit(Stage s, bool finished, std::string detail) {
  if (m_progress) m_progress(StageEvent{s, finished, std::move(detail)});
}

bool CpuEvaluation::fail(core::Status s, std::string reason) {
  m_verdict.status = s;
  m_verdict.reason = std::move(reason);
  m_decided = true;
  return false;
}

bool CpuEvaluation::analyze() {
  // Resolves the variant, then static analysis (docs/analysis.md): an error finding rejects the
  // candidate before it is compiled (a clang parse error is a compile_error); where libclang is
  // absent, CPU candidates go on with a note (they still run only in the sandbox).
  auto t = std::chrono::steady_clock::now();
  emit(Stage::analyze, false);
  auto variant = choose_variant(m_spec, m_cand);
  if (!variant) return fail(core::Status::rejected, variant.error().what());
  m_variant = *variant;
  m_verdict.variant = m_variant->name;
  if (auto tests = evaluation_test_workloads(m_spec, m_seeds); !tests)
    return fail(core::Status::error, tests.error().what());
  else
    m_test_workloads = std::move(*tests);
  auto ref_start = std::chrono::steady_clock::now();
  if (auto ref = open_reference(m_open_reference, m_spec); !ref)
    return fail(core::Status::error, ref.error().what());
  else
    m_reference = *ref;
  m_verdict.summary.stage_ms["reference_open"] = ms_since(ref_start);  // its build (or cache hit) and process start
  analysis::set_cache_dir(m_opt.workspace / "cache" / "analysis");
  analysis::Request request{m_spec, *m_variant, "cpu", m_cand.source, m_cand.source_name, {}, m_cand.flags};
  request.timeout_ms = m_opt.compile_timeout_ms;  // the parse gets as long as the compile would
  auto report = analysis::analyze(request);
  m_verdict.summary.stage_ms["analyze"] = ms_since(t);
  auto outcome = fold_analysis(report, m_verdict, m_cand.source_name,
                               "cpu candidates are allowed without it: they run only in the sandbox");
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
  m_verdict.toolchain = m_toolchain->identity();
  for (const auto& f : m_toolchain->base_flags()) m_verdict.toolchain += " " + f;
  for (const auto& f : m_cand.flags) m_verdict.toolchain += " " + f;
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
  if (!compiled->ok)
    return fail(compiled->timed_out ? core::Status::time_limit : core::Status::compile_error, compiled->reason);
  m_object = compiled->object_inside;
  m_verdict.summary.compile_cache = !m_opt.compile_cache ? "off" : compiled->cache_hit ? "hit" : "miss";
  emit(Stage::compile, true,
       fmt::format("{}, {:.0f} ms{}", m_toolchain->identity(), ms_since(t), compiled->cache_hit ? " (cache hit)" : ""));
  return true;
}

bool CpuEvaluation::start_runner() {
  auto arena = SharedArena::create();
  if (!arena) return fail(core::Status::error, arena.error().what());
  m_arena.emplace(std::move(*arena));
  RunnerConfig cfg{m_opt.runner, m_opt.bwrap, m_job, m_opt.threads, m_opt.run_timeout_ms, m_opt.run_memory_bytes};
  // The session may also be timed against the incumbent in the decide stage (at least
  // min_blocks block pairs per bench workload): the run profile's 30 s of CPU stopped slow
  // incumbents there. Every command still has its own timeout; this is the session's backstop.
  cfg.cpu_seconds = 300;
  auto t = std::chrono::steady_clock::now();
  auto runner = RunnerSession::start(cfg, *m_arena);
  if (!runner) return fail(core::Status::error, runner.error().what());
  m_verdict.summary.stage_ms["runner_start"] = ms_since(t);  // the sandbox's share, reported apart
  {
    std::lock_guard lock(m_runner_mutex);
    m_runner = std::move(*runner);
    if (m_cancelled) m_runner->kill();
  }
  if (auto r = m_runner->load(m_object, m_variant->entry); !r) return fail(r.error().status, r.error().reason);
  return true;
}

bool CpuEvaluation::validate() {
  auto t = std::chrono::steady_clock::now();
  emit(Stage::validate, false);
  bool ok = start_runner() && run_workloads(false);
  m_verdict.summary.stage_ms["validate"] = ms_since(t);
  if (ok) emit(Stage::validate, true);
  return ok;
}

bool CpuEvaluation::benchmark() {
  auto t = std::chrono::steady_clock::now();
  emit(Stage::benchmark, false);
  // The runner stays open: the decide stage may time it against the incumbent (timing_subject()).
  bool ok = run_workloads(true);
  m_verdict.summary.stage_ms["benchmark"] = ms_since(t);
  if (ok) emit(Stage::benchmark, true);
  return ok;
}

bool CpuEvaluation::decide() {
  // Comparison with the incumbent's tuning records arrives with the library issue.
  int tests = 0, drawn = 0, checks = 0;
  const core::WorkloadResult* slowest = nullptr;
  for (const auto& w : m_verdict.workloads) {
    checks += w.checks;
    if (w.kind == "test") ++(w.drawn ? drawn : tests);
    if (w.time && (!slowest || w.time->median_ns > slowest->time->median_ns)) slowest = &w;
  }
  if (m_opt.benchmark) {
    m_verdict.summary.machine = m_watch.state(0);
    if (m_verdict.summary.machine->busy)
      m_verdict.diagnostics.push_back(core::Diagnostic{m_cand.source_name, 0, 0, "warning",
                                                       "busy machine during timing (" +
                                                           m_verdict.summary.machine->detail +
                                                           "): figures may be noisy; decisions widen their intervals",
                                                       "machine-busy"});
  }
  m_verdict.status = core::Status::accepted;
  m_verdict.reason = fmt::format("correct on {} test{} and {} bench workloads ({} checks on fresh inputs)", tests,
                                 drawn ? fmt::format(", {} drawn", drawn) : "",
                                 m_verdict.workloads.size() - size_t(tests + drawn), checks);
  if (slowest && slowest->roofline && slowest->roofline->pct_bw)
    m_verdict.reason += fmt::format("; {}: median {:.3f} ms, {:.0f}% of calibrated bandwidth", slowest->name,
                                    slowest->time->median_ns / 1e6, *slowest->roofline->pct_bw);
  m_decided = true;
  return true;
}

std::unique_ptr<TimingSubject> CpuEvaluation::timing_subject(const std::string& who) {
  if (!m_decided || m_verdict.status != core::Status::accepted || !m_runner || !m_arena || !m_variant) return nullptr;
  TimingSubjectConfig cfg;
  cfg.who = who;
  cfg.flush_bytes = m_device.llc_bytes * 2;
  cfg.timeout_ms = m_opt.run_timeout_ms;
  cfg.freeze = false;  // the trusted CPU timing charges the runner's CPU between commands (timing_subject.hpp)
  return std::make_unique<TimingSubject>(m_spec, *m_variant, *m_reference, *m_arena, *m_runner, std::move(cfg));
}

void CpuEvaluation::report(const StageEvent& e) {
  if (m_progress) m_progress(e);
}

core::Verdict CpuEvaluation::verdict() {
  core::Verdict v = m_verdict;
  if (!m_decided) {
    v.status = core::Status::error;
    v.reason = "evaluation did not finish";
  }
  v.summary.wall_ms = ms_since(m_start);
  return v;
}

}  // namespace kwb::eval
