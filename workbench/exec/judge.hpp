#pragma once
// What the daemon's lanes ask of the judging policy (implemented in app/, which knows the library):
// the pipeline knows nothing of the library, incumbents or baselines. A local candidate's device
// stages run (docs/library.md "Verdict first, decision second"):
//   validate, benchmark, the evaluation's decide()   -> verdict(): what the verdict carries
//   the verdict is stored (comparison pending when verdict() said so)
//   compare(): the timed comparison with the incumbent, on the still open evaluation
//   decided(): the policy's word on the decision (auto-promotion); the decision is stored.
#include <memory>
#include <string>

#include "core/verdict.hpp"
#include "eval/bench_timer.hpp"
#include "eval/evaluation.hpp"
#include "store/candidate_repository.hpp"

namespace kwb::exec {

class Judge {
 public:
  virtual ~Judge() = default;
  // Before the benchmark stage: how the candidate's bench workloads are timed (one pass: a timer
  // that times it interleaved with a warm incumbent, docs/library.md "One pass"); null: alone.
  virtual std::shared_ptr<eval::BenchTimer> bench_timer(const store::CandidateRecord& rec, const std::string& source,
                                                        eval::Evaluation& evaluation) {
    (void)rec;
    (void)source;
    (void)evaluation;
    return nullptr;
  }
  // In the device lane after the evaluation's own decision, before the verdict is stored: the
  // vendor baselines and any decision known without timing the incumbent (no incumbent yet, the
  // same source). True when a timed comparison with the incumbent follows the stored verdict.
  virtual bool verdict(const store::CandidateRecord& rec, const std::string& source, core::Verdict& v,
                       eval::Evaluation& evaluation) = 0;
  // After the verdict is stored, in the same lane with the evaluation still open: the timed
  // comparison, filling `v` (a copy of the stored verdict) with its fields.
  virtual void compare(const store::CandidateRecord& rec, const std::string& source, core::Verdict& v,
                       eval::Evaluation& evaluation) = 0;
  // A decided verdict, local or a remote worker's (which compared on its node): the policy acts on
  // it (auto-promotion) and may append to its reason. Runs before the decision is stored.
  virtual void decided(const store::CandidateRecord& rec, const std::string& source, core::Verdict& v) = 0;
};

}  // namespace kwb::exec
