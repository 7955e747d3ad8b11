// CudaLauncherEvaluation (cuda_launcher_evaluation.hpp): the cuda-launcher form's analyze and
// compile stages, and the runner's load of its shared object.
#include <chrono>
#include <system_error>

#include <fmt/format.h>

#include "analysis/analyzer.hpp"
#include "build/compiler_facts.hpp"
#include "build/nvcc_toolchain.hpp"
#include "eval/analysis_outcome.hpp"
#include "eval/cuda_launcher_evaluation.hpp"
#include "util/fs.hpp"
#include "util/clock.hpp"

namespace kwb::eval {

namespace {

using util::ms_since;

}  // namespace

CudaLauncherEvaluation::CudaLauncherEvaluation(const core::Spec& spec, ReferenceOpener reference, core::Candidate cand,
                                               EvalOptions opt, CudaOptions cuda, CudaDevice device,
                                               ProgressFn progress, std::shared_ptr<build::NvrtcCompiler> compiler)
    : CudaEvaluation(spec, std::move(reference), std::move(cand), std::move(opt), std::move(cuda), std::move(device),
                     std::move(progress), std::move(compiler), core::Backend::cuda_launcher) {}

bool CudaLauncherEvaluation::analyze() {
  auto t = std::chrono::steady_clock::now();
  emit(Stage::analyze, false);
  if (!resolve_variant() || !draw_test_workloads()) return false;
  m_configs = {core::TuneConfig{}};
  if (!open_spec_reference()) return false;
  // Host code of the candidate runs in the sandboxed runner: the analysis checks the entry's
  // signature, the stream discipline and the host-code rules of cpu candidates (docs/analysis.md).
  auto outcome = analyze_source(
      {m_spec, *m_variant, m_verdict.backend, m_cand.source, m_cand.source_name, {}, m_cand.flags},
      "cuda-launcher candidates go on without it: their host code runs only in the sandboxed runner, and work left "
      "on other streams is caught there",
      t);
  if (outcome.failed) return fail(*outcome.failed, outcome.reason);
  const std::string& summary = outcome.summary;
  emit(Stage::analyze, true, fmt::format("variant {}, host entry {}, {}", m_variant->name, m_variant->entry, summary));
  return true;
}

bool CudaLauncherEvaluation::compile_candidate() {
  auto t = std::chrono::steady_clock::now();
  emit(Stage::compile, false);
  auto nvcc = build::NvccToolchain::detect(m_cuda.nvcc);
  if (!nvcc) return fail(core::Status::error, nvcc.error().what());
  record_toolchain(nvcc->identity(), nvcc->base_flags(arch()));
  auto job = util::make_unique_dir(m_opt.workspace / "jobs", "nvcc-");
  if (!job) return fail(core::Status::error, job.error().what());
  struct Cleanup {
    std::filesystem::path dir;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } cleanup{*job};
  build::CompileRequest req{m_cand.source, m_cand.source_name, *job, m_cand.flags, m_opt.bwrap,
                            std::max(m_opt.compile_timeout_ms, build::NvccToolchain::k_default_timeout_ms),
                            m_opt.compile_cache ? m_opt.workspace / "cache" / "nvcc" : std::filesystem::path()};
  auto compiled = nvcc->compile(req, arch());
  m_verdict.summary.stage_ms["compile"] = ms_since(t);
  if (!compiled) return fail(core::Status::error, compiled.error().what());
  m_verdict.diagnostics.insert(m_verdict.diagnostics.end(), compiled->diagnostics.begin(), compiled->diagnostics.end());
  if (!compiled->ok) return fail_build(compiled->timed_out, compiled->reason);
  auto so = util::read_file(*job / std::filesystem::path(compiled->object_inside).filename());
  if (!so) return fail(core::Status::error, so.error().what());
  m_cubin_data = {std::move(*so)};
  m_verdict.compiler_facts = {build::launcher_facts(arch(), compiled->ptxas_report)};
  m_verdict.summary.stage_ms["nvcc"] = compiled->wall_ms;
  m_verdict.summary.compile_cache = compile_cache_state(compiled->cache_hit);
  emit(Stage::compile, true,
       fmt::format("{}, {:.0f} ms{}", nvcc->identity(), ms_since(t), compiled->cache_hit ? " (cache hit)" : ""));
  return true;
}

std::string CudaLauncherEvaluation::module_file(size_t c) const {
  (void)c;  // one config
  return "candidate.so";
}

bool CudaLauncherEvaluation::load_config(size_t c, const std::string& module) {
  (void)c;  // one config
  auto r = m_runner->command({{"op", "load"}, {"so", module}, {"entry", m_variant->entry}},
                             m_opt.run_timeout_ms, "loading the candidate");
  if (!r) return fail_check({r.error().status, r.error().reason});
  return true;
}

}  // namespace kwb::eval
