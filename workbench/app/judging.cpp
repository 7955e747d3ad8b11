#include "app/judging.hpp"

#include <spdlog/spdlog.h>

namespace kwb::app {

library::Policy policy_from(const util::Settings& settings) {
  library::Policy p;
  p.decide_budget_ms = int(settings.get_int("decide-budget-ms"));
  return p;
}

Judging::Judging(library::Repository* library, store::Database& db, const spec::Catalog& specs,
                 exec::EvaluationFactory factory, JudgingConfig cfg, library::Curator* curator)
    : m_db(db), m_factory(std::move(factory)), m_cfg(std::move(cfg)), m_baselines(specs),
      m_auto_promote(m_cfg.auto_promote), m_curator(curator) {
  if (library) m_referee.emplace(*library, db, m_cfg.policy);
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
  if (!m_referee) return false;
  auto inc = m_referee->settle(candidate_of(rec, source, v), v, &evaluation);
  if (!inc) return false;
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
  store::CandidateRecord pinned = rec;
  pinned.spec_version = v.spec_version;
  auto on_device = on_device_of(evaluation);
  m_referee->compare(cand, v, evaluation, *inc, [&](const core::Candidate& k, const std::vector<std::string>& bench) {
    return prepare_library_kernel(on_device, pinned, k, bench);
  });
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
