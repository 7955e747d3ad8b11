// The `cuda-launcher` form in CudaEvaluation (docs/cuda.md): an extern "C" host entry taking the
// tensors' device pointers, the int64 params and a cudaStream_t, built by nvcc into a shared
// object in the compile sandbox, then run by kwb-gpu-runner in the run sandbox exactly like a
// `cuda` plan with one config (same arena, harness, poisoning, guards, timing loop), plus the
// runner's check that no work was left outside the given stream.
#include <chrono>
#include <system_error>

#include <fmt/format.h>

#include "analysis/analyzer.hpp"
#include "build/compiler_facts.hpp"
#include "build/nvcc_toolchain.hpp"
#include "eval/analysis_outcome.hpp"
#include "eval/choose_variant.hpp"
#include "eval/cuda_evaluation.hpp"
#include "util/fs.hpp"
#include "util/clock.hpp"

namespace kwb::eval {

namespace {

using util::ms_since;

}  // namespace

bool CudaEvaluation::analyze_launcher() {
  auto t = std::chrono::steady_clock::now();
  emit(Stage::analyze, false);
  auto variant = choose_variant(m_spec, m_cand);
  if (!variant) return fail(core::Status::rejected, variant.error().what());
  m_variant = *variant;
  m_verdict.variant = m_variant->name;
  if (!draw_test_workloads()) return false;
  m_configs = {core::TuneConfig{}};
  auto ref_start = std::chrono::steady_clock::now();
  if (auto ref = open_reference(m_open_reference, m_spec); !ref)
    return fail(core::Status::error, ref.error().what());
  else
    m_reference = *ref;
  m_verdict.summary.stage_ms["reference_open"] = ms_since(ref_start);  // its build (or cache hit) and process start
  // Host code of the candidate runs in the sandboxed runner: the analysis checks the entry's
  // signature, the stream discipline and the host-code rules of cpu candidates (docs/analysis.md).
  analysis::set_cache_dir(m_opt.workspace / "cache" / "analysis");
  analysis::Request request{m_spec, *m_variant, "cuda-launcher", m_cand.source, m_cand.source_name, {}, m_cand.flags};
  request.timeout_ms = m_opt.compile_timeout_ms;
  auto report = analysis::analyze(request);
  m_verdict.summary.stage_ms["analyze"] = ms_since(t);
  auto outcome = fold_analysis(report, m_verdict, m_cand.source_name,
                               "cuda-launcher candidates go on without it: their host code runs only in the "
                               "sandboxed runner, and work left on other streams is caught there");
  if (outcome.failed) return fail(*outcome.failed, outcome.reason);
  const std::string& summary = outcome.summary;
  emit(Stage::analyze, true, fmt::format("variant {}, host entry {}, {}", m_variant->name, m_variant->entry, summary));
  return true;
}

bool CudaEvaluation::compile_launcher() {
  auto t = std::chrono::steady_clock::now();
  emit(Stage::compile, false);
  auto nvcc = build::NvccToolchain::detect(m_cuda.nvcc);
  if (!nvcc) return fail(core::Status::error, nvcc.error().what());
  m_verdict.toolchain = nvcc->identity();
  for (const auto& f : nvcc->base_flags(arch())) m_verdict.toolchain += " " + f;
  for (const auto& f : m_cand.flags) m_verdict.toolchain += " " + f;
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
  if (!compiled->ok)
    return fail(compiled->timed_out ? core::Status::time_limit : core::Status::compile_error, compiled->reason);
  auto so = util::read_file(*job / std::filesystem::path(compiled->object_inside).filename());
  if (!so) return fail(core::Status::error, so.error().what());
  m_cubin_data = {std::move(*so)};
  m_verdict.compiler_facts = {build::launcher_facts(arch(), compiled->ptxas_report)};
  m_verdict.summary.stage_ms["nvcc"] = compiled->wall_ms;
  m_verdict.summary.compile_cache = !m_opt.compile_cache ? "off" : compiled->cache_hit ? "hit" : "miss";
  emit(Stage::compile, true,
       fmt::format("{}, {:.0f} ms{}", nvcc->identity(), ms_since(t), compiled->cache_hit ? " (cache hit)" : ""));
  return true;
}

}  // namespace kwb::eval
