#pragma once
// Vendor baselines (docs/cuda.md "Vendor baselines", docs/specs.md "Baselines"): a spec may name
// cuda-launcher sources calling cuBLAS or CUB. For an accepted GPU verdict, each bench workload's
// vs_baseline is the baseline's median over the candidate's (> 1: the candidate is faster), and
// summary.geomean_vs_baseline their geometric mean. A baseline is evaluated like any candidate
// (sandboxed, in its own runner process, checked against the reference on fresh inputs, then timed)
// the first time a workload needs it on this device; its times are kept for the life of the
// process. A baseline that is not accepted gives no ratio, and the verdict's reason says why.
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/candidate.hpp"
#include "core/verdict.hpp"
#include "spec/loader.hpp"

namespace kwb::app {

// Evaluates `kernel` (a cuda-launcher baseline) on the given bench workloads only.
using BaselineMeasureFn = std::function<core::Verdict(const core::Candidate& kernel, const std::vector<std::string>& bench)>;

class BaselineJudge {
 public:
  explicit BaselineJudge(const spec::Catalog& specs) : m_specs(specs) {}
  void judge(core::Verdict& v, const BaselineMeasureFn& measure);

 private:
  const spec::Catalog& m_specs;
  std::mutex m_mutex;                          // one judge at a time per process (the device lane)
  std::map<std::string, core::TimeStats> m_times;  // "<op>/<variant>/<baseline>/<device>/<workload>"
  std::map<std::string, std::string> m_failed;     // "<op>/<variant>/<baseline>/<device>" -> why
};

}  // namespace kwb::app
