#pragma once
// What `kwb serve` and `kwb ci promote` share: how candidates are evaluated, where the library is,
// how a library kernel is measured again on this machine, and the auto-promote policy.
#include <filesystem>
#include <set>
#include <string>

#include "core/candidate.hpp"
#include "core/verdict.hpp"
#include "eval/cpu_device.hpp"
#include "eval/options.hpp"
#include "exec/pipeline.hpp"
#include "spec/loader.hpp"
#include "util/settings.hpp"

namespace kwb::app {

// Evaluation options from the settings (workspace, runner, sandbox, budgets).
eval::EvalOptions eval_options(const util::Settings& settings);
// Evaluations of cpu candidates (the backend the daemon serves); `specs` must outlive it.
exec::EvaluationFactory cpu_factory(const spec::Catalog& specs, eval::EvalOptions opt, eval::CpuDevice cpu);

// The `library` setting, or <workspace>/library.
std::filesystem::path library_path(const util::Settings& settings);

// Evaluates a library kernel (the incumbent) through the daemon's evaluation factory, in the
// calling thread (the device lane, so on the same device slot); `like` supplies the backend.
core::Verdict measure_library_kernel(const exec::EvaluationFactory& factory, const store::CandidateRecord& like,
                                     const core::Candidate& kernel);

// The `auto-promote` setting: "" (off), "all", or a comma list of ops.
class AutoPromote {
 public:
  explicit AutoPromote(const std::string& setting);
  bool covers(const std::string& op) const { return m_all || m_ops.contains(op); }

 private:
  bool m_all = false;
  std::set<std::string> m_ops;
};

}  // namespace kwb::app
