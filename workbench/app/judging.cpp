#include "app/judging.hpp"

#include <chrono>

#include <spdlog/spdlog.h>

#include "library/promotion_gate.hpp"

namespace kwb::app {

library::Policy policy_from(const util::Settings& settings) {
  library::Policy p;
  p.decide_budget_ms = int(settings.get_int("decide-budget-ms"));
  return p;
}

namespace {

// Clean before promotion (docs/profiles.md): a promotable CUDA candidate under compute-sanitizer
// first, whether the decision came from a comparison or not.
void gate_promotion(core::Verdict& v, eval::Evaluation& evaluation) {
  if (library::needs_sanitizer_gate(v))
    if (auto s = evaluation.sanitize_for_promotion()) library::apply_sanitizer_gate(v, *s);
}

// The one-pass timer of one candidate; its warm incumbent goes back to the pool when the
// candidate's evaluation lets go of it, unless it failed on a workload.
class PooledPairedBenchmark : public eval::PairedBenchmark {
 public:
  PooledPairedBenchmark(std::shared_ptr<IncumbentPool> pool, IncumbentKey key, std::unique_ptr<eval::Evaluation> warm,
                        std::unique_ptr<eval::TimingSubject> subject, eval::PairedConfig cfg, eval::PairedRules rules)
      : eval::PairedBenchmark(std::move(subject), cfg, std::move(rules)), m_pool(std::move(pool)), m_key(std::move(key)),
        m_warm(std::move(warm)) {}
  ~PooledPairedBenchmark() override {
    release_incumbent();  // its timing subject goes first: it refers to the evaluation's runner
    if (incumbent_failures().empty()) m_pool->give(m_key, std::move(m_warm));
  }

 private:
  std::shared_ptr<IncumbentPool> m_pool;
  IncumbentKey m_key;
  std::unique_ptr<eval::Evaluation> m_warm;
};

}  // namespace

Judging::Judging(library::Repository* library, store::Database& db, const spec::Catalog& specs,
                 exec::EvaluationFactory factory, JudgingConfig cfg, library::Curator* curator)
    : m_db(db), m_factory(std::move(factory)), m_cfg(std::move(cfg)), m_baselines(specs),
      m_auto_promote(m_cfg.auto_promote), m_curator(curator) {
  if (library) m_referee.emplace(*library, db, m_cfg.policy);
  if (m_cfg.warm_incumbents > 0) m_pool = std::make_shared<IncumbentPool>(m_cfg.warm_incumbents);
}

std::shared_ptr<eval::BenchTimer> Judging::bench_timer(const store::CandidateRecord& rec, const std::string& source,
                                                       eval::Evaluation& evaluation) {
  if (!m_referee || !m_pool || !evaluation.variant()) return nullptr;
  const core::Verdict so_far = evaluation.verdict();  // device, backend, spec version
  core::Candidate cand = candidate_of(rec, source, so_far);
  cand.variant = evaluation.variant()->name;
  const std::string dc = library::device_class(so_far, rec.device_class);
  auto inc = m_referee->find_incumbent(cand, dc);
  if (!inc) return nullptr;
  std::string flags;
  for (const auto& f : inc->flags) flags += " " + f;
  IncumbentKey key{evaluation.bound_device(), cand.op + "/" + cand.variant + "/" + cand.backend + "/" + dc,
                   inc->ref.source_sha256 + "|spec v" + std::to_string(so_far.spec_version) + "|" + flags};
  auto warm = m_pool->take(key);
  std::optional<double> prepared_ms;
  if (!warm) {
    const auto t0 = std::chrono::steady_clock::now();
    // Prepared once: its validation under the candidate's spec version is its re-validation;
    // an incumbent that fails it is left to the comparison after the verdict (which says why).
    store::CandidateRecord pinned = rec;
    pinned.spec_version = so_far.spec_version;
    core::Candidate ic{"library:" + inc->entry.kernel, cand.op, cand.variant, cand.backend, inc->source,
                       inc->entry.kernel, inc->flags, "warm incumbent"};
    auto made = prepare_library_kernel(on_device_of(evaluation), pinned, ic, {eval::EvalOptions::k_no_bench});
    if (!made) return nullptr;
    // Its configs: those the library recorded per bench workload at its promotion (dispatch.json),
    // else the first of its kwb:tune grid.
    std::map<std::string, std::map<std::string, int64_t>> configs;
    for (const auto& c : inc->entry.configs) configs[c.workload] = c.tune;
    if (!configs.empty()) (*made)->prefer_configs(configs);
    if (eval::run_to_verdict(**made).status != core::Status::accepted) return nullptr;
    warm = std::move(*made);
    prepared_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  auto subject = warm->timing_subject("the incumbent");
  if (!subject) return nullptr;
  std::vector<core::ConfigFacts> facts = warm->verdict().compiler_facts;  // for the resource diff
  const std::string device = evaluation.device_key();
  auto timer = std::make_shared<PooledPairedBenchmark>(m_pool, std::move(key), std::move(warm), std::move(subject),
                                                       m_referee->paired_config(device), m_referee->paired_rules(device));
  timer->set_incumbent_source(inc->ref.source_sha256);
  timer->set_incumbent_facts(std::move(facts));
  std::lock_guard lock(m_mutex);
  for (auto it = m_paired.begin(); it != m_paired.end();)  // candidates that ended before their comparison
    it = it->second.expired() ? (m_prepared_ms.erase(it->first), m_paired.erase(it)) : std::next(it);
  m_paired[rec.id] = timer;
  if (prepared_ms) m_prepared_ms[rec.id] = *prepared_ms;
  return timer;
}

core::Candidate Judging::candidate_of(const store::CandidateRecord& rec, const std::string& source,
                                      const core::Verdict& v) const {
  return {rec.id, rec.op, v.variant.empty() ? rec.variant : v.variant, rec.backend, source, rec.source_name, rec.flags,
          rec.note};
}

exec::EvaluationFactory Judging::on_device_of(eval::Evaluation& evaluation) const {
  return [factory = m_factory, &evaluation](const store::CandidateRecord& r, const std::string& s, eval::ProgressFn p) {
    auto made = factory(r, s, std::move(p));
    if (made) (*made)->bind_like(evaluation);
    return made;
  };
}

bool Judging::verdict(const store::CandidateRecord& rec, const std::string& source, core::Verdict& v,
                      eval::Evaluation& evaluation) {
  store::CandidateRecord pinned = rec;  // library kernels are judged under the candidate's spec version
  pinned.spec_version = v.spec_version;
  if (m_cfg.baselines) {
    auto on_device = on_device_of(evaluation);
    m_baselines.judge(v, [&](const core::Candidate& k, const std::vector<std::string>& bench) {
      store::CandidateRecord like = pinned;
      like.backend = k.backend;
      like.bench = bench;
      return measure_library_kernel(on_device, like, k);
    });
  }
  {  // the warm incumbent's preparation, where this candidate paid for it (the first of its kind)
    std::lock_guard lock(m_mutex);
    if (auto it = m_prepared_ms.find(rec.id); it != m_prepared_ms.end()) {
      v.summary.stage_ms["incumbent_prepare"] = it->second;
      m_prepared_ms.erase(it);
    }
  }
  if (!m_referee) return false;
  auto inc = m_referee->settle(candidate_of(rec, source, v), v, &evaluation);
  if (!inc) {  // decided without a comparison (no incumbent yet, or it no longer passes): gated alike
    gate_promotion(v, evaluation);
    return false;
  }
  std::lock_guard lock(m_mutex);
  m_settled[rec.id] = std::move(*inc);
  return true;
}

void Judging::compare(const store::CandidateRecord& rec, const std::string& source, core::Verdict& v,
                      eval::Evaluation& evaluation) {
  if (!m_referee) return;
  std::optional<library::Incumbent> inc;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_settled.find(rec.id); it != m_settled.end()) {
      inc = std::move(it->second);
      m_settled.erase(it);
    }
  }
  core::Candidate cand = candidate_of(rec, source, v);
  if (!inc) {  // a comparison run again after a restart: the incumbent is read anew
    core::Verdict probe = v;
    inc = m_referee->settle(cand, probe, &evaluation);
    if (!inc) {
      v = probe;
      return;
    }
  }
  std::shared_ptr<eval::PairedBenchmark> paired;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_paired.find(rec.id); it != m_paired.end()) {
      paired = it->second.lock();
      m_paired.erase(it);
    }
  }
  // One pass where the benchmark stage was timed against this very incumbent.
  if (paired && paired->incumbent_source() == inc->ref.source_sha256) {
    m_referee->compare_paired(cand, v, evaluation, *inc, *paired);
  } else {
    store::CandidateRecord pinned = rec;
    pinned.spec_version = v.spec_version;
    auto on_device = on_device_of(evaluation);
    m_referee->compare(cand, v, evaluation, *inc, [&](const core::Candidate& k, const std::vector<std::string>& bench) {
      return prepare_library_kernel(on_device, pinned, k, bench);
    });
  }
  gate_promotion(v, evaluation);
}

void Judging::judge(const store::CandidateRecord& rec, const std::string& source, core::Verdict& v,
                    eval::Evaluation& evaluation) {
  if (verdict(rec, source, v, evaluation)) compare(rec, source, v, evaluation);
}

void Judging::decided(const store::CandidateRecord& rec, const std::string& source, core::Verdict& v) {
  if (!m_curator || !m_auto_promote.covers(rec.op) || v.status != core::Status::accepted ||
      !v.summary.beats_incumbent.value_or(false))
    return;
  auto o = m_curator->promote_evaluated(candidate_of(rec, source, v), v, "auto-promote", rec.device_class);
  if (o.code == library::Outcome::Code::ok) {
    v.reason += "; auto-promoted in library commit " + o.body["commit"].get<std::string>();
    spdlog::info("auto-promoted {}: commit {}", rec.id, o.body["commit"].get<std::string>());
  } else {
    v.reason += "; auto-promotion refused: " + o.message;
  }
}

}  // namespace kwb::app
