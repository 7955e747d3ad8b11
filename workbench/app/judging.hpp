#pragma once
// The one judging policy of a process (docs/library.md "Decide"), built once from the settings
// and used by `kwb serve` (as the pipeline's exec::Judge), `kwb worker`, `kwb ci promote` and
// `kwb eval --compare`: the spec's vendor baselines, the comparison with the library's incumbent
// (library::Referee under one library::Policy), and the auto-promote policy.
#include <memory>
#include <optional>
#include <string>

#include "app/baseline_judge.hpp"
#include "app/incumbent_pool.hpp"
#include "app/library_support.hpp"
#include "exec/judge.hpp"
#include "library/curator.hpp"
#include "library/referee.hpp"
#include "store/database.hpp"
#include "util/settings.hpp"

namespace kwb::app {

struct JudgingConfig {
  library::Policy policy;
  bool baselines = true;               // vendor baselines for GPU verdicts (vs_baseline)
  std::string auto_promote = "none";   // the auto-promote setting: none, all or a list of ops
  size_t warm_incumbents = 8;          // idle warm incumbents kept at most (0: one pass off)
};

// The policy from the settings (decide-budget-ms); `ci promote` reads its own file on top.
library::Policy policy_from(const util::Settings& settings);

class Judging : public exec::Judge {
 public:
  // `library`: null where there is none (no comparison, only baselines); `curator`: null where
  // nothing may be promoted by policy. Library kernels and baselines are evaluated through
  // `factory`, bound to the candidate's device.
  Judging(library::Repository* library, store::Database& db, const spec::Catalog& specs, exec::EvaluationFactory factory,
          JudgingConfig cfg, library::Curator* curator = nullptr);

  // One pass: where the library has an incumbent for the candidate, a warm evaluation of it
  // (incumbent_pool.hpp, prepared and validated the first time) timed interleaved with the
  // candidate in its benchmark stage.
  std::shared_ptr<eval::BenchTimer> bench_timer(const store::CandidateRecord& rec, const std::string& source,
                                                eval::Evaluation& evaluation) override;
  bool verdict(const store::CandidateRecord& rec, const std::string& source, core::Verdict& v,
               eval::Evaluation& evaluation) override;
  void compare(const store::CandidateRecord& rec, const std::string& source, core::Verdict& v,
               eval::Evaluation& evaluation) override;
  void decided(const store::CandidateRecord& rec, const std::string& source, core::Verdict& v) override;
  // verdict(), then compare() when it asked for it (kwb eval, kwb worker, kwb ci promote: one
  // verdict with its comparison); no auto-promotion.
  void judge(const store::CandidateRecord& rec, const std::string& source, core::Verdict& v,
             eval::Evaluation& evaluation);
  const library::Policy& policy() const { return m_cfg.policy; }

 private:
  core::Candidate candidate_of(const store::CandidateRecord& rec, const std::string& source, const core::Verdict& v) const;
  // The factory with every evaluation bound to `evaluation`'s device (its lane's GPU).
  exec::EvaluationFactory on_device_of(eval::Evaluation& evaluation) const;

  store::Database& m_db;
  exec::EvaluationFactory m_factory;
  JudgingConfig m_cfg;
  std::optional<library::Referee> m_referee;
  BaselineJudge m_baselines;
  AutoPromote m_auto_promote;
  library::Curator* m_curator;
  std::shared_ptr<IncumbentPool> m_pool;
  std::mutex m_mutex;
  std::map<std::string, library::Incumbent> m_settled;  // candidate id -> incumbent, verdict() to compare()
  // candidate id -> its one-pass timer (owned by its evaluation: gone when the evaluation is)
  std::map<std::string, std::weak_ptr<eval::PairedBenchmark>> m_paired;
  std::map<std::string, double> m_prepared_ms;  // candidate id -> its warm incumbent's preparation
};

}  // namespace kwb::app
