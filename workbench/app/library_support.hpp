#pragma once
// What `kwb serve` and `kwb ci promote` share: how candidates are evaluated, where the library is,
// how a library kernel is measured again on this machine, and the auto-promote policy.
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "core/candidate.hpp"
#include "core/verdict.hpp"
#include "eval/cpu_device.hpp"
#include "eval/cuda_evaluation.hpp"
#include "eval/gpu_session_pool.hpp"
#include "eval/options.hpp"
#include "eval/reference.hpp"
#include "eval/reference_host.hpp"
#include "exec/pipeline.hpp"
#include "spec/loader.hpp"
#include "util/settings.hpp"

namespace kwb::app {

// Evaluation options from the settings (workspace, runner, sandbox, budgets).
eval::EvalOptions eval_options(const util::Settings& settings);
// The CUDA side of a factory: where the GPU helpers are and the device found at start-up
// (present = false on a machine without a GPU: cuda candidates are still analysed and compiled,
// and their verdict is no_device).
struct CudaBackend {
  eval::CudaOptions options;
  // What evaluations are made with: the one GPU, or (several GPUs of the class) a stand-in for
  // any of them (any_of_class) that a lane binds to its own GPU (docs/architecture.md "Lanes").
  eval::CudaDevice device;
  // kwb serve: a started runner session kept ready for the next GPU evaluation (may be null).
  std::shared_ptr<eval::GpuSessionPool> sessions;
  // With every_gpu: each GPU found, usable (present) or not (reason), in PCI bus order.
  std::vector<eval::CudaDevice> gpus;
  // The usable GPUs of the device class evaluations run on (the class with the most of them).
  std::vector<eval::CudaDevice> lane_gpus() const;
};
// The GPU helpers beside kwb-runner, the device (found and calibrated once; never an error).
// every_gpu (kwb serve): every GPU of the host, each checked on its own (eval::cuda_devices).
// `only` (with every_gpu): the ordinals to use; empty: all of them.
CudaBackend find_cuda_backend(store::Database& db, const eval::EvalOptions& opt, bool every_gpu = false,
                              const std::set<int>& only = {});
// The `gpus` setting: "all" (empty set) or a comma list of ordinals; an error names the bad item.
util::Result<std::set<int>> gpu_selection(const std::string& setting);
// Evaluations of cpu and cuda candidates; `specs` must outlive it.
// The specs' references, built and run as eval::ReferenceHost does, for evaluations under `opt`
// (the host lives as long as the opener or its copies).
// The reference host's settings for evaluations under `opt`.
eval::ReferenceHostConfig reference_host_config(const eval::EvalOptions& opt);
// With `prebuild`, its specs' references are compiled at once in the background (the daemon).
eval::ReferenceOpener references_for(const eval::EvalOptions& opt, const spec::Catalog* prebuild = nullptr);
exec::EvaluationFactory evaluation_factory(const spec::Catalog& specs, eval::EvalOptions opt, eval::CpuDevice cpu,
                                           CudaBackend cuda, bool prebuild_references = false);

// The `reference-cache` setting, with a leading "<workspace>/" replaced by the workspace.
std::filesystem::path reference_cache_path(const util::Settings& settings);
// The machine's CPU calibration cache (the calibration-cache setting).
eval::CalibrationCache calibration_cache(const util::Settings& settings);
// The `library` setting, with a leading "<workspace>/" replaced by the workspace.
std::filesystem::path library_path(const util::Settings& settings);

// Evaluates a library kernel (the incumbent) through the daemon's evaluation factory, in the
// calling thread (the device lane, so on the same device slot); `like` supplies the backend.
core::Verdict measure_library_kernel(const exec::EvaluationFactory& factory, const store::CandidateRecord& like,
                                     const core::Candidate& kernel);
// The same evaluation, not yet run: the decide stage runs it and keeps it open to time it
// against the candidate (library::PrepareFn); `bench` as in CandidateRecord::bench.
util::Result<std::unique_ptr<eval::Evaluation>> prepare_library_kernel(const exec::EvaluationFactory& factory,
                                                                       const store::CandidateRecord& like,
                                                                       const core::Candidate& kernel,
                                                                       const std::vector<std::string>& bench);

// The `auto-promote` setting: "none" (or ""), "all", or a comma list of ops.
class AutoPromote {
 public:
  explicit AutoPromote(const std::string& setting);
  bool covers(const std::string& op) const { return m_all || m_ops.contains(op); }

 private:
  bool m_all = false;
  std::set<std::string> m_ops;
};

}  // namespace kwb::app
