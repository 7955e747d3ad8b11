#pragma once
// The `cuda` form's evaluation (docs/cuda.md): kernels and a launch plan in comment lines. It
// parses and checks the launch plan, analyses the kernels statically (docs/analysis.md) and
// compiles every tunable config with NVRTC in sandboxed warm workers (cubins cached); the GPU
// session's part is CudaEvaluation's (cuda_evaluation.hpp).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "build/nvrtc_compiler.hpp"
#include "core/feedback.hpp"
#include "core/launch_plan.hpp"
#include "eval/cuda_evaluation.hpp"

namespace kwb::eval {

class CudaPlanEvaluation : public CudaEvaluation {
 public:
  // `compiler` may be shared (the daemon keeps one warm pool); null: this evaluation makes its own.
  CudaPlanEvaluation(const core::Spec& spec, ReferenceOpener reference, core::Candidate cand, EvalOptions opt,
                     CudaOptions cuda, CudaDevice device, ProgressFn progress = {},
                     std::shared_ptr<build::NvrtcCompiler> compiler = nullptr);

  bool analyze() override;
  std::vector<Artifact> artifacts() const override;
  const core::LaunchPlan& plan() const { return m_plan; }

 private:
  bool compile_candidate() override;  // every config with NVRTC
  std::string module_file(size_t c) const override;
  bool load_config(size_t c, const std::string& module) override;
  bool send_dims(size_t c, const core::Workload& w) override;  // the plan's launch dimensions for `w`
  // false: the verdict is decided; stage_ms.analyze counts from `stage_start`.
  bool static_analysis(std::string& summary, std::chrono::steady_clock::time_point stage_start);
  void add_compiler_facts(size_t config, const build::CudaCompileResult& r);  // NVRTC's (cuda_facts.hpp)
  // Every config's cubin disassembled in the sandbox (cuda_sass.cpp): SASS kept as an artifact,
  // its instruction mix into compiler_facts[].kernels[].sass; or the reason there is none.
  void add_sass();
  // A space larger than the grid (docs/tuning.md): searched on the first bench workload, then the
  // evaluation goes on with the finalists (cuda_plan_search.cpp).
  bool search_tunable_space() override;
  // Compiles the configs of `batch` not compiled yet (search mode): per config, "" or why not.
  std::vector<std::string> compile_batch(const std::vector<size_t>& batch);
  // A predicted time per config for `w` (the cost-model prior): waves of blocks over the SMs at the
  // occupancy threads and shared memory allow, per block of work.
  std::vector<double> occupancy_prior(const core::Workload& w) const;

  core::LaunchPlan m_plan;
  bool m_search = false;  // the space is larger than the grid
  // Search mode: what each config compiled to, by its index in the space.
  struct Compiled {
    std::string cubin, ptx, l2_policy;
    core::ConfigFacts facts;
  };
  std::map<size_t, Compiled> m_compiled;
  std::vector<std::string> m_ptx_data;   // per config, from compile()
  std::vector<std::string> m_sass_data;  // per config, from add_sass(); "" where none
  std::vector<std::string> m_l2_policy;  // per config: the L2 eviction-policy instruction its PTX uses, or ""
};

}  // namespace kwb::eval
