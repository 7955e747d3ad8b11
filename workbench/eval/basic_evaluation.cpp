#include "eval/basic_evaluation.hpp"

#include "core/measurement_method.hpp"

#include <fmt/format.h>

#include "analysis/analyzer.hpp"
#include "eval/analysis_outcome.hpp"
#include "eval/choose_variant.hpp"
#include "eval/test_workloads.hpp"
#include "util/clock.hpp"

namespace kwb::eval {

using util::ms_since;

BasicEvaluation::BasicEvaluation(const core::Spec& spec, ReferenceOpener reference, core::Candidate cand,
                                 EvalOptions opt, ProgressFn progress, core::Backend backend)
    : m_spec(spec), m_open_reference(std::move(reference)), m_cand(std::move(cand)), m_opt(std::move(opt)),
      m_progress(std::move(progress)), m_seeds(m_opt.seed), m_start(std::chrono::steady_clock::now()) {
  m_verdict.candidate = m_cand.id;
  m_verdict.op = spec.op;
  m_verdict.spec_version = spec.version;
  m_verdict.backend = core::backend_name(backend);  // the form's name, written here only
  m_verdict.summary.method = core::k_measurement_method;
}

void BasicEvaluation::emit(Stage s, bool finished, std::string detail) {
  if (m_progress) m_progress(StageEvent{s, finished, std::move(detail)});
}

void BasicEvaluation::report(const StageEvent& e) {
  if (m_progress) m_progress(e);
}

bool BasicEvaluation::fail(core::Status s, std::string reason) {
  m_verdict.status = s;
  m_verdict.reason = std::move(reason);
  m_decided = true;
  return false;
}

bool BasicEvaluation::fail_check(const CheckFailure& f) {
  auto c = classify(f);
  return fail(c.status, c.reason);
}

bool BasicEvaluation::fail_build(bool timed_out, std::string reason) {
  return fail(timed_out ? core::Status::time_limit : core::Status::compile_error, std::move(reason));
}

bool BasicEvaluation::resolve_variant(std::string_view hint) {
  auto variant = choose_variant(m_spec, m_cand);
  if (!variant) return fail(core::Status::rejected, variant.error().what() + std::string(hint));
  m_variant = *variant;
  m_verdict.variant = m_variant->name;
  return true;
}

bool BasicEvaluation::draw_test_workloads() {
  auto tests = evaluation_test_workloads(m_spec, m_seeds);
  if (!tests) return fail(core::Status::error, tests.error().what());
  m_test_workloads = std::move(*tests);
  return true;
}

bool BasicEvaluation::open_spec_reference() {
  auto ref_start = std::chrono::steady_clock::now();
  if (auto ref = open_reference(m_open_reference, m_spec); !ref)
    return fail(core::Status::error, ref.error().what());
  else
    m_reference = *ref;
  m_verdict.summary.stage_ms["reference_open"] = ms_since(ref_start);  // its build (or cache hit) and process start
  return true;
}

AnalysisOutcome BasicEvaluation::analyze_source(analysis::Request request, const std::string& why_allowed,
                                                std::chrono::steady_clock::time_point stage_start) {
  analysis::set_cache_dir(m_opt.workspace / "cache" / "analysis");
  request.timeout_ms = m_opt.compile_timeout_ms;  // the parse gets as long as the compile would
  auto report = analysis::analyze(request);
  m_verdict.summary.stage_ms["analyze"] = ms_since(stage_start);
  return fold_analysis(report, m_verdict, m_cand.source_name, why_allowed);
}

void BasicEvaluation::record_toolchain(const std::string& identity, const std::vector<std::string>& base_flags) {
  m_verdict.toolchain = identity;
  for (const auto& f : base_flags) m_verdict.toolchain += " " + f;
  for (const auto& f : m_cand.flags) m_verdict.toolchain += " " + f;
}

std::string BasicEvaluation::compile_cache_state(bool hit) const {
  return !m_opt.compile_cache ? "off" : hit ? "hit" : "miss";
}

bool BasicEvaluation::decide() {
  int tests = 0, drawn = 0, checks = 0;
  const core::WorkloadResult* slowest = nullptr;
  for (const auto& w : m_verdict.workloads) {
    checks += w.checks;
    if (w.kind == "test") ++(w.drawn ? drawn : tests);
    if (w.time && (!slowest || w.time->median_ns > slowest->time->median_ns)) slowest = &w;
  }
  add_decide_notes();
  m_verdict.status = core::Status::accepted;
  m_verdict.reason = fmt::format("correct on {} test{} and {} bench workloads ({} checks on fresh inputs{})", tests,
                                 drawn ? fmt::format(", {} drawn", drawn) : "",
                                 m_verdict.workloads.size() - size_t(tests + drawn), checks, checks_note());
  m_verdict.reason += judged_note();
  if (slowest && slowest->roofline && slowest->roofline->pct_bw)
    m_verdict.reason += fmt::format("; {}: median {}, {:.0f}% of calibrated bandwidth", slowest->name,
                                    median_text(slowest->time->median_ns), *slowest->roofline->pct_bw);
  m_decided = true;
  return true;
}

core::Verdict BasicEvaluation::verdict() {
  core::Verdict v = m_verdict;
  if (!m_decided) {
    v.status = core::Status::error;
    v.reason = "evaluation did not finish";
  }
  v.summary.wall_ms = ms_since(m_start);
  return v;
}

std::unique_ptr<TimingSubject> BasicEvaluation::timing_subject(const std::string& who) {
  if (!m_decided || m_verdict.status != core::Status::accepted) return nullptr;
  return make_timing_subject(who);
}

std::optional<CheckFailure> BasicEvaluation::time_workload(const core::Workload& w, WorkloadHarness& h,
                                                           const BenchmarkConfig& cfg, const StoppingCriterion& criterion,
                                                           const std::function<void()>& fresh, core::TimeStats& out) {
  if (m_bench_timer)
    if (auto subject = make_timing_subject("the candidate")) {
      subject->attach(w, h);
      return m_bench_timer->time(w, *subject, cfg, criterion, fresh, out);
    }
  return run_benchmark(h, *m_runner, cfg, criterion, fresh, out);
}

std::unique_ptr<TimingSubject> BasicEvaluation::make_timing_subject(const std::string& who) {
  if (!m_runner || !m_arena || !m_variant) return nullptr;
  TimingSubjectConfig cfg;
  cfg.who = who;
  cfg.timeout_ms = m_opt.run_timeout_ms;
  configure_timing(cfg);
  return std::make_unique<TimingSubject>(m_spec, *m_variant, *m_reference, *m_arena, *m_runner, std::move(cfg));
}

}  // namespace kwb::eval
