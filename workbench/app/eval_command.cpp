// kwb eval SOURCE --op OP: evaluate one candidate file locally and print its verdict.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <iostream>

#include "app/commands.hpp"
#include "core/backend_inference.hpp"
#include "app/baseline_judge.hpp"
#include "app/judging.hpp"
#include "app/library_support.hpp"
#include "app/spec_sources.hpp"
#include "library/referee.hpp"
#include "app/verdict_table.hpp"
#include "eval/profile_request.hpp"
#include "eval/cpu_device.hpp"
#include "eval/cpu_evaluation.hpp"
#include "eval/cuda_evaluation.hpp"
#include "spec/loader.hpp"
#include "store/database.hpp"
#include "util/fs.hpp"

namespace kwb::app {

namespace {

struct EvalArgs {
  std::string source, op, variant, backend;  // backend empty: cuda for .cu files, else cpu
  std::string gpu_arch;
  uint64_t seed = 0;
  size_t search_budget = 0;
  bool json = false, no_bench = false, keep_job = false, no_cache = false, compare = false, no_baseline = false;
  bool profile = false;
  std::vector<std::string> flags, bench;
};

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "kwb eval: %s\n", msg.c_str());
  return 2;
}

int run_eval(const EvalArgs& a, const util::Settings& settings) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(a.source, ec)) return usage_error("no such file: " + a.source);
  auto source = util::read_file(a.source);
  if (!source) return usage_error(source.error().what());
  const auto form = !a.backend.empty() ? core::parse_backend(a.backend) : core::infer_backend(a.source, *source);
  if (!form) return usage_error("backend '" + a.backend + "' is not one of " + core::backend_list());
  const std::string backend(core::backend_name(*form));
  auto catalog = load_catalog(settings);
  if (!catalog) return usage_error(catalog.error().what());
  const core::Spec* spec = catalog->find(a.op);
  if (!spec) {
    std::string ops;
    for (const auto& o : catalog->ops()) ops += (ops.empty() ? "" : ", ") + o;
    return usage_error("unknown op '" + a.op + "' (known: " + ops + ")");
  }
  std::filesystem::path workspace = settings.get("workspace");
  auto db = store::Database::open(workspace / "kwb.db");
  if (!db) return usage_error(db.error().what());

  core::Candidate cand;
  cand.id = a.source;
  cand.op = a.op;
  cand.variant = a.variant;
  cand.backend = backend;
  cand.source = *source;
  cand.source_name = std::filesystem::path(a.source).filename().string();
  cand.flags = a.flags;
  cand.profile = a.profile;

  eval::EvalOptions opt;
  opt.workspace = workspace;
  opt.runner = settings.get("runner");
  opt.bwrap = settings.get("bwrap");
  opt.cxx = settings.get("cxx");
  opt.seed = a.seed;
  opt.search_budget = a.search_budget;
  opt.time_budget_ms = int(settings.get_int("time-budget-ms"));
  opt.gpu_clock = settings.get("gpu-clock");
  if (opt.gpu_clock != "events" && opt.gpu_clock != "cupti")
    return usage_error("--gpu-clock '" + opt.gpu_clock + "' is not one of events, cupti");
  opt.compile_timeout_ms = int(settings.get_int("compile-timeout-ms"));
  opt.run_timeout_ms = int(settings.get_int("run-timeout-ms"));
  opt.reference_timeout_ms = int(settings.get_int("reference-timeout-ms"));
  opt.reference_cache = reference_cache_path(settings);
  opt.threads = int(settings.get_int("threads"));
  opt.run_memory_bytes = settings.get_int("run-memory-mb") << 20;
  opt.benchmark = !a.no_bench;
  if (auto ok = spec::check_bench_selection(*spec, backend, a.bench); !ok) return usage_error(ok.error().what());
  opt.bench = a.bench;
  opt.keep_job = a.keep_job;
  opt.compile_cache = !a.no_cache;
  if (!std::filesystem::exists(opt.runner, ec)) return usage_error("kwb-runner not found at " + opt.runner.string());

  core::Verdict verdict;
  std::optional<CudaBackend> gpu;  // for the baselines
  std::unique_ptr<eval::Evaluation> evaluation;  // kept open for --compare's interleaved timing
  if (core::on_gpu(*form)) {
    // The GPU helpers live beside kwb-runner (and kwb).
    auto helpers = opt.runner.parent_path();
    eval::CudaOptions cuda;
    cuda.gpu_runner = helpers / "kwb-gpu-runner";
    cuda.nvrtc_worker = helpers / "kwb-nvrtc-worker";
    cuda.gpu_arch = a.gpu_arch;
    cuda.clock = opt.gpu_clock;
    cuda.compile_workers = int(std::clamp(std::thread::hardware_concurrency() / 2, 1u, 8u));
    if (const char* driver = std::getenv("KWB_CUDA_DRIVER"); driver && *driver) cuda.driver = driver;
    // One runner session finds (and on first use calibrates) the GPU, then runs the evaluation.
    auto session = eval::start_gpu_session(
        {cuda.gpu_runner, opt.bwrap, workspace / "jobs", opt.run_timeout_ms, cuda.driver, opt.keep_job});
    if (!session) return usage_error(session.error().what());
    auto device = eval::cuda_device(*db, **session);
    if (!device) return usage_error(device.error().what());
    gpu = CudaBackend{cuda, *device};
    auto cuda_eval = eval::make_cuda_evaluation(*spec, references_for(opt), cand, opt, cuda, *device);
    if (device->present) cuda_eval->adopt_session(std::move(*session));
    else session->reset();
    evaluation = std::move(cuda_eval);
    verdict = eval::run_to_verdict(*evaluation);
  } else {
    auto device = eval::cpu_device(*db, calibration_cache(settings));
    if (!device) return usage_error(device.error().what());
    evaluation = std::make_unique<eval::CpuEvaluation>(*spec, references_for(opt), cand, opt, *device);
    verdict = eval::run_to_verdict(*evaluation);
  }
  if (a.compare && verdict.status == core::Status::accepted) {
    // Against the workspace library's incumbent, as the daemon's decide stage does: both timed
    // interleaved here and now.
    auto repo = library::Repository::open_or_seed(library_path(settings), settings.get("kernels-dir"));
    if (!repo) return usage_error("library: " + repo.error().what());
    auto cpu = eval::cpu_device(*db, calibration_cache(settings));
    if (!cpu) return usage_error(cpu.error().what());
    auto factory = evaluation_factory(*catalog, opt, *cpu, find_cuda_backend(*db, opt));
    store::CandidateRecord like;
    like.id = cand.id;
    like.op = cand.op;
    like.variant = verdict.variant;
    like.backend = cand.backend;
    like.bench = a.bench;
    like.source_name = cand.source_name;
    like.flags = cand.flags;
    Judging(repo->get(), *db, *catalog, factory, JudgingConfig{policy_from(settings), false, "none"})
        .judge(like, cand.source, verdict, *evaluation);
  }
  if (gpu && !a.no_baseline && verdict.status == core::Status::accepted) {
    // vs_baseline: the spec's vendor baselines evaluated here, in their own runner process.
    auto cpu = eval::cpu_device(*db, calibration_cache(settings));
    if (!cpu) return usage_error(cpu.error().what());
    auto factory = evaluation_factory(*catalog, opt, *cpu, *gpu);
    BaselineJudge(*catalog).judge(verdict, [&](const core::Candidate& k, const std::vector<std::string>& bench) {
      store::CandidateRecord like;
      like.op = k.op;
      like.backend = k.backend;
      like.bench = bench;
      return measure_library_kernel(factory, like, k);
    });
  }
  // The evaluation's profile pass says what came of it; else why none was taken.
  if (a.profile && !verdict.profile)
    verdict.profile = eval::profile_outcome(verdict.backend, std::string(core::status_name(verdict.status)));
  if (a.json)
    std::cout << core::to_json(verdict).dump(2) << "\n";
  else
    std::cout << render_verdict(verdict);
  return verdict.status == core::Status::accepted ? 0 : 1;
}

}  // namespace

void add_eval_command(CLI::App& app, util::Settings& settings, int& code) {
  auto args = std::make_shared<EvalArgs>();
  auto* cmd = app.add_subcommand("eval", "Evaluate one candidate file: compile and run it in the sandbox, check it "
                                         "against the spec's reference on fresh inputs, time it, print the verdict");
  cmd->add_option("source", args->source,
                  "Candidate source file: C++ with the spec's extern \"C\" entry (cpu), or .cu with extern \"C\" "
                  "__global__ kernels and a // kwb:launch plan (cuda, docs/cuda.md)")
      ->required();
  cmd->add_option("--op", args->op, "Operator spec to check against (see `kwb specs`)")->required();
  cmd->add_option("--variant", args->variant, "Spec variant (default: inferred from the entry symbol)");
  cmd->add_option("--backend", args->backend, "cpu, cuda or cuda-launcher (default: .cu files are cuda, or cuda-launcher without a kwb:launch line and with a cudaStream_t; else cpu)");
  cmd->add_option("--gpu-arch", args->gpu_arch, "NVRTC target for cuda candidates, e.g. sm_90a (default: the GPU's; "
                                                "sm_90a without one)");
  cmd->add_option("--seed", args->seed, "Fixed seed for reproducible inputs (default: secret seeds)");
  cmd->add_option("--search-budget", args->search_budget,
                  "A tunable space larger than the grid: configs the search may time (default: a fifth of the "
                  "space, at least 16; docs/tuning.md)");
  cmd->add_option("--flag", args->flags, "Extra compiler flag (repeatable; -O*, -f*, -m*, -D*, -U*, -W* only)");
  cmd->add_flag("--json", args->json, "Print the kwb.verdict.v1 JSON");
  cmd->add_flag("--no-bench", args->no_bench, "Check correctness only; skip timing");
  cmd->add_flag("--profile", args->profile,
                "Ask for a profile of the bench workloads (verdict.profile says what came of it: no_device "
                "without a GPU; docs/verdict.md \"Profiles\")");
  cmd->add_flag("--no-baseline", args->no_baseline,
                "Skip the spec's vendor baselines (cuBLAS/CUB; by default evaluated here for vs_baseline)");
  cmd->add_flag("--compare", args->compare, "Compare with the library's incumbent: both timed interleaved here "
                                             "(per workload a label, ratio and interval; summary.decision)");
  cmd->add_option("--bench", args->bench, "Validate and time only this bench workload (repeatable)");
  cmd->add_flag("--keep-job", args->keep_job, "Keep the sandbox job folder under <workspace>/jobs");
  cmd->add_flag("--no-cache", args->no_cache, "Compile even when <workspace>/cache holds this exact build");
  add_setting_flags(*cmd, settings);
  cmd->callback([args, &settings, &code] { code = run_eval(*args, settings); });
}

}  // namespace kwb::app
