// make_cuda_evaluation (cuda_evaluation.hpp): the form of a CUDA candidate picks its evaluation.
#include "core/backend.hpp"
#include "eval/cuda_evaluation.hpp"
#include "eval/cuda_launcher_evaluation.hpp"
#include "eval/cuda_plan_evaluation.hpp"

namespace kwb::eval {

std::unique_ptr<CudaEvaluation> make_cuda_evaluation(const core::Spec& spec, ReferenceOpener reference,
                                                     core::Candidate cand, EvalOptions opt, CudaOptions cuda,
                                                     CudaDevice device, ProgressFn progress,
                                                     std::shared_ptr<build::NvrtcCompiler> compiler) {
  if (core::is_backend(cand.backend, core::Backend::cuda_launcher))
    return std::make_unique<CudaLauncherEvaluation>(spec, std::move(reference), std::move(cand), std::move(opt),
                                                    std::move(cuda), std::move(device), std::move(progress),
                                                    std::move(compiler));
  return std::make_unique<CudaPlanEvaluation>(spec, std::move(reference), std::move(cand), std::move(opt),
                                              std::move(cuda), std::move(device), std::move(progress),
                                              std::move(compiler));
}

}  // namespace kwb::eval
