#pragma once
// The decide stage against the library (docs/library.md "Decide"): an accepted
// candidate is timed against the incumbent interleaved, in the same device slot, each in its own
// sandboxed runner, on every bench workload; the decision rule (decision.hpp) labels each
// comparison and refuses to promote on doubt. Tuning records are kept for the leaderboard and
// export (the incumbent is timed for them too when its records are missing or stale), but a
// decision never rests on them.
#include <functional>
#include <optional>
#include <string>

#include "core/candidate.hpp"
#include "core/verdict.hpp"
#include "eval/evaluation.hpp"
#include "eval/machine_state.hpp"
#include "eval/paired_benchmark.hpp"
#include "library/decision.hpp"
#include "library/dispatch.hpp"
#include "library/repository.hpp"
#include "store/database.hpp"
#include "store/tuning_repository.hpp"

namespace kwb::library {

// Prepares a library kernel (the incumbent) on the same device: an evaluation run through its
// decide stage (analyze .. decide; `bench`: the bench workloads to time for its tuning records,
// or {EvalOptions::k_no_bench}), left open so that it can be timed against the candidate.
using PrepareFn = std::function<util::Result<std::unique_ptr<eval::Evaluation>>(const core::Candidate& kernel,
                                                                                 const std::vector<std::string>& bench)>;

// Flags a library kernel was promoted with (its metadata's "flags"); none for seeded kernels.
std::vector<std::string> kernel_flags(Repository& repo, const std::string& kernel, const std::string& commit);
// The incumbents of `op` at the head commit (every variant and device class; `backend` empty:
// every backend), as candidates to evaluate again (`kwb retime`, POST /v1/library/{op}/retime).
util::Result<std::vector<core::Candidate>> incumbents_of(Repository& repo, const std::string& op,
                                                         const std::string& backend);

// host_cpu_class() ("cpu-x86_64-v3") for the CPU; "cuda-sm_90" from a CUDA verdict's device ("... (sm_90, ...").
std::string device_class(const core::Verdict& v);
// The class a verdict was measured under, where the machine that reads it is not the one that
// measured it: `recorded` (the candidate's device_class: on the Slurm executor, the class of the
// node that evaluated it) when it names a class of the verdict's kind (cpu-* for cpu, cuda-* for
// cuda), else device_class(v). A CPU verdict from a node of another CPU is filed under the node's
// class, not the daemon host's (docs/fleet.md "Device classes").
std::string device_class(const core::Verdict& v, const std::string& recorded);
// The verdict's toolchain without the candidate's own flags (what a library kernel compiles with).
std::string base_toolchain(const std::string& toolchain, const std::vector<std::string>& flags);
// The workbench version and the measurement method's salt (core/measurement_method.hpp): the
// `workbench` part of a tuning record's identity ("0.1.0+m2").
std::string measured_by_method();
// The identity a verdict's timings were measured under.
store::TuningIdentity identity_of(const core::Verdict& v);
// Tuning records of a verdict's timed bench workloads (spec params and tunables together).
std::vector<store::TuningRecord> records_of(const core::Verdict& v, const std::string& source_sha256,
                                            const std::string& measured_by);

// The incumbent a verdict is compared with, as the library's head names it (read from git).
struct Incumbent {
  DispatchEntry entry;
  core::IncumbentRef ref;
  std::string source;
  std::vector<std::string> flags;  // it was promoted with (kernel_flags)
  // Where the op's incumbents hold regions (docs/library.md "Shape regions"): the incumbent of
  // every region the candidate's timed bench workloads fall in, each with those workloads
  // (`workloads`), compared one after the other; empty: this one serves every workload.
  std::vector<Incumbent> regions;
  std::vector<std::string> workloads;
  std::vector<std::string> notes;  // regional: what the comparison cannot cover (no incumbent, no workload)
};

// The bench workloads of the spec that the verdict timed, in spec order.
std::vector<const core::Workload*> timed_workloads(const core::Spec& spec, const core::Verdict& v);

class Referee {
 public:
  Referee(Repository& repo, store::Database& db, Policy policy = {}) : m_repo(repo), m_db(db), m_policy(policy) {}
  // The part that needs no timing, for an accepted verdict: stores the candidate's tuning
  // records and reads the incumbent from the library. Where no timing can change the outcome
  // (no library head, no incumbent yet, the same source, no open evaluation or nothing timed)
  // the verdict's decision is filled in here and nothing is returned. Other verdicts are left alone.
  std::optional<Incumbent> settle(const core::Candidate& cand, core::Verdict& v, const eval::Evaluation* candidate);
  // The timed part: prepares `incumbent`, times both interleaved on every bench workload
  // (eval/paired_timing.hpp) through `candidate`, which must be the evaluation that produced
  // `v` and still be open, then fills every bench workload's comparison and vs_incumbent,
  // summary.decision, geomean_vs_incumbent, beats_incumbent and incumbent, stage_ms.decide
  // (wall_ms includes it), and appends the outcome to the reason. A candidate that fails during
  // the comparison gets that verdict.
  void compare(const core::Candidate& cand, core::Verdict& v, eval::Evaluation& candidate, const Incumbent& incumbent,
               const PrepareFn& prepare);
  // settle(), then compare() when it leaves the comparison to timing.
  void judge(const core::Candidate& cand, core::Verdict& v, eval::Evaluation* candidate, const PrepareFn& prepare);
  // One pass (docs/library.md "One pass"): the candidate's benchmark stage timed it interleaved
  // with a warm evaluation of `incumbent` (`bench`); its block pairs are carried on where the
  // answer is not known yet, through `candidate` (the open evaluation that produced `v`). Fills
  // `v` as compare() does; the incumbent's tuning records come from its blocks.
  void compare_paired(const core::Candidate& cand, core::Verdict& v, eval::Evaluation& candidate,
                      const Incumbent& incumbent, eval::PairedBenchmark& bench);
  // How a comparison on `device_key` is timed and labelled (the policy's blocks, interval, rules).
  eval::PairedConfig paired_config(const std::string& device_key) const;
  eval::PairedRules paired_rules(const std::string& device_key) const;
  // The incumbent of the candidate's op, variant, backend and class at the library's head, read
  // from git; none where there is none, or it has the candidate's source.
  std::optional<Incumbent> find_incumbent(const core::Candidate& cand, const std::string& device_class);
  const Policy& policy() const { return m_policy; }

 private:
  // compare() against one incumbent on the verdict's timed bench workloads.
  void compare_one(const core::Candidate& cand, core::Verdict& v, eval::Evaluation& candidate,
                   const Incumbent& incumbent, const PrepareFn& prepare);
  // settle() and compare() where the incumbents hold regions (referee_regions.cpp): each region's
  // incumbent on the workloads of its region, each region decided alone.
  std::optional<Incumbent> settle_regions(const core::Candidate& cand, core::Verdict& v, const core::Spec& spec,
                                          const Dispatch& dispatch, const std::string& commit);
  void compare_regions(const core::Candidate& cand, core::Verdict& v, eval::Evaluation& candidate,
                       const Incumbent& incumbents, const PrepareFn& prepare);
  // The decision from the workloads' comparisons: summary.decision, geomean, machine, the note.
  void conclude(core::Verdict& v, const std::vector<WorkloadComparison>& comparisons, const Policy& policy,
                const std::string& kernel, const eval::MachineWatch& watch);
  Repository& m_repo;
  store::Database& m_db;
  Policy m_policy;
};

}  // namespace kwb::library
