#pragma once
// The decide stage against the library (DESIGN §9, docs/library.md): an accepted candidate's
// bench times are compared with the incumbent's tuning records on the same device and
// toolchain. When those records are missing or stale the incumbent is evaluated again in the
// same run (same device slot, fresh inputs) and its new records are stored. The comparison
// margin accounts for the measured noise of both sides.
#include <functional>
#include <string>

#include "core/candidate.hpp"
#include "core/verdict.hpp"
#include "library/repository.hpp"
#include "store/database.hpp"
#include "store/tuning_repository.hpp"

namespace kwb::library {

struct Policy {
  double min_gain_pct = 1.0;        // a win must be at least this much faster ...
  double noise_sigmas = 3.0;        // ... and beyond this many standard errors of the difference
                                    // (with few samples: the matching Student's t quantile instead)
  double max_regression_pct = 5.0;  // no bench workload may be slower by more than this
  bool always_remeasure = false;    // time the incumbent in this run even with current records (CI)
};

// Runs a full evaluation (analyze .. decide) of a library kernel on the same device.
using MeasureFn = std::function<core::Verdict(const core::Candidate&)>;

// "cpu-x86_64" for the CPU; "cuda-sm_90" from a CUDA verdict's device ("... (sm_90, ...").
std::string device_class(const core::Verdict& v);
// The verdict's toolchain without the candidate's own flags (what a library kernel compiles with).
std::string base_toolchain(const std::string& toolchain, const std::vector<std::string>& flags);
// The identity a verdict's timings were measured under.
store::TuningIdentity identity_of(const core::Verdict& v);
// Tuning records of a verdict's timed bench workloads (spec params and tunables together).
std::vector<store::TuningRecord> records_of(const core::Verdict& v, const std::string& source_sha256,
                                            const std::string& measured_by);

class Referee {
 public:
  Referee(Repository& repo, store::Database& db, Policy policy = {}) : m_repo(repo), m_db(db), m_policy(policy) {}
  // For an accepted verdict: stores the candidate's records, then fills every bench workload's
  // vs_incumbent, summary.geomean_vs_incumbent, beats_incumbent and summary.incumbent, and
  // appends the outcome to the reason. Other verdicts are left alone.
  void judge(const core::Candidate& cand, core::Verdict& v, const MeasureFn& measure);
  const Policy& policy() const { return m_policy; }

 private:
  Repository& m_repo;
  store::Database& m_db;
  Policy m_policy;
};

}  // namespace kwb::library
