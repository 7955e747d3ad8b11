#pragma once
// The `cuda-launcher` form's evaluation (docs/cuda.md "The cuda-launcher form"): an extern "C"
// host entry taking the tensors' device pointers, the int64 params and a cudaStream_t, built by
// nvcc into a shared object in the compile sandbox, then run by kwb-gpu-runner in the run sandbox
// exactly like a `cuda` plan with one config (CudaEvaluation: same arena, harness, poisoning,
// guards, timing loop), plus the runner's check that no work was left outside the given stream.
#include "eval/cuda_evaluation.hpp"

namespace kwb::eval {

class CudaLauncherEvaluation : public CudaEvaluation {
 public:
  CudaLauncherEvaluation(const core::Spec& spec, ReferenceOpener reference, core::Candidate cand, EvalOptions opt,
                         CudaOptions cuda, CudaDevice device, ProgressFn progress = {},
                         std::shared_ptr<build::NvrtcCompiler> compiler = nullptr);

  bool analyze() override;  // no launch plan: one "config"

 private:
  bool compile_candidate() override;  // nvcc, the object cached
  std::string module_file(size_t c) const override;
  bool load_config(size_t c, const std::string& module) override;
  bool host_code_in_runner() const override { return true; }
  // Launchers keep CUDA events: their check for work left on other streams times a context
  // synchronisation, which CUPTI's own record processing stretched past its limit on the H200
  // (docs/cuda.md "Timing").
  bool may_time_with_cupti() const override { return false; }
};

}  // namespace kwb::eval
