#include "app/library_support.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>
#include <thread>

#include "core/backend.hpp"
#include "eval/cpu_evaluation.hpp"
#include "eval/cuda_device.hpp"
#include "eval/reference_host.hpp"
#include "util/ignore.hpp"

namespace kwb::app {

eval::EvalOptions eval_options(const util::Settings& s) {
  eval::EvalOptions opt;
  opt.workspace = s.get("workspace");
  opt.runner = s.get("runner");
  opt.bwrap = s.get("bwrap");
  opt.cxx = s.get("cxx");
  opt.time_budget_ms = int(s.get_int("time-budget-ms"));
  opt.gpu_clock = s.get("gpu-clock");
  opt.compile_timeout_ms = int(s.get_int("compile-timeout-ms"));
  opt.run_timeout_ms = int(s.get_int("run-timeout-ms"));
  opt.reference_timeout_ms = int(s.get_int("reference-timeout-ms"));
  opt.reference_cache = reference_cache_path(s);
  opt.threads = int(s.get_int("threads"));
  opt.run_memory_bytes = s.get_int("run-memory-mb") << 20;
  return opt;
}

std::vector<eval::CudaDevice> CudaBackend::lane_gpus() const {
  std::map<std::string, std::vector<eval::CudaDevice>> by_class;
  for (const auto& g : gpus)
    if (g.present) by_class[g.id].push_back(g);
  const std::vector<eval::CudaDevice>* most = nullptr;
  for (const auto& [id, list] : by_class)
    if (!most || list.size() > most->size()) most = &list;
  return most ? *most : std::vector<eval::CudaDevice>{};
}

util::Result<std::set<int>> gpu_selection(const std::string& setting) {
  std::set<int> out;
  if (setting == "all" || setting.empty()) return out;
  std::stringstream in(setting);
  for (std::string item; std::getline(in, item, ',');) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.empty() || item.size() > 4 || item.find_first_not_of("0123456789") != std::string::npos)
      return util::fail("settings", "--gpus '" + setting + "': '" + item +
                                        "' is not a GPU ordinal (expected 'all' or a comma list such as 0,2,3; KWB_GPUS)");
    out.insert(std::stoi(item));
  }
  return out;
}

CudaBackend find_cuda_backend(store::Database& db, const eval::EvalOptions& opt, bool every_gpu,
                              const std::set<int>& only) {
  CudaBackend b;
  auto helpers = opt.runner.parent_path();
  b.options.gpu_runner = helpers / "kwb-gpu-runner";
  b.options.nvrtc_worker = helpers / "kwb-nvrtc-worker";
  b.options.compile_workers = int(std::clamp(std::thread::hardware_concurrency() / 2, 1u, 8u));
  b.options.clock = opt.gpu_clock;
  if (const char* driver = std::getenv("KWB_CUDA_DRIVER"); driver && *driver) b.options.driver = driver;
  const eval::GpuSessionOptions session{b.options.gpu_runner, opt.bwrap, opt.workspace / "jobs", opt.run_timeout_ms,
                                        b.options.driver, false};
  if (every_gpu) {
    auto all = eval::cuda_devices(db, session);
    if (!all) {
      b.device.reason = "no CUDA device: " + all.error().what();
      return b;
    }
    for (const auto& g : *all)  // a GPU, usable or not (not: no driver, no GPU), unless --gpus leaves it out
      if (!g.pci_bus_id.empty() && (only.empty() || only.contains(g.ordinal))) b.gpus.push_back(g);
    if (b.gpus.empty()) {
      b.device = all->empty() ? eval::CudaDevice{} : all->front();
      return b;
    }
    auto usable = b.lane_gpus();
    if (usable.empty()) {
      b.device = b.gpus.empty() ? eval::CudaDevice{} : b.gpus.front();
      b.device.present = false;
      if (b.gpus.size() > 1) {
        b.device.reason = "no usable CUDA device: none of the " + std::to_string(b.gpus.size()) + " GPUs passed its start-up";
        for (const auto& g : b.gpus) b.device.reason += "; " + g.reason;
      }
      return b;
    }
    b.device = usable.front();
    b.device.any_of_class = usable.size() > 1;  // bound by the lane that takes the evaluation
    return b;
  }
  auto device = eval::cuda_device(db, session);
  if (device) {
    b.device = *device;
  } else {
    b.device.present = false;
    b.device.reason = "no CUDA device: " + device.error().what();
  }
  return b;
}

eval::ReferenceHostConfig reference_host_config(const eval::EvalOptions& opt) {
  eval::ReferenceHostConfig cfg;
  cfg.runner = opt.runner;
  cfg.bwrap = opt.bwrap;
  cfg.workspace = opt.workspace;
  cfg.cxx = opt.cxx;
  cfg.compile_timeout_ms = std::max(opt.compile_timeout_ms, 120000);
  cfg.timeout_ms = opt.reference_timeout_ms;
  cfg.compile_cache = opt.compile_cache;
  cfg.cache_dir = opt.reference_cache;
  return cfg;
}

eval::ReferenceOpener references_for(const eval::EvalOptions& opt, const spec::Catalog* prebuild) {
  auto host = std::make_shared<eval::ReferenceHost>(reference_host_config(opt));
  if (prebuild) {
    // The daemon's first evaluation of each op should not wait for its reference's compile:
    // build them all now, in the background (what fails here fails again, with its reason, in
    // the evaluation that opens it).
    std::vector<core::Spec> specs;
    for (const auto& op : prebuild->ops()) specs.push_back(*prebuild->find(op));
    std::thread([host, specs = std::move(specs)] {
      for (const auto& spec : specs)
        util::ignore(host->build(spec), "prebuilding " + spec.op + "'s reference: the evaluation that opens it "
                                        "builds it again and reports the reason");
    }).detach();
  }
  return [host](const core::Spec& spec) { return host->open(spec); };
}

exec::EvaluationFactory evaluation_factory(const spec::Catalog& specs, eval::EvalOptions opt, eval::CpuDevice cpu,
                                           CudaBackend cuda, bool prebuild_references) {
  return [&specs, base = opt, cpu, cuda, references = references_for(opt, prebuild_references ? &specs : nullptr)](const store::CandidateRecord& rec, const std::string& source,
                                         eval::ProgressFn progress) -> util::Result<std::unique_ptr<eval::Evaluation>> {
    eval::EvalOptions opt = base;
    opt.bench = rec.bench;
    const core::Spec* spec = rec.spec_version > 0 ? specs.find(rec.op, rec.spec_version) : specs.find(rec.op);
    if (!spec)
      return util::fail("op", "unknown op '" + rec.op + "'" +
                                  (rec.spec_version > 0 ? " at spec version " + std::to_string(rec.spec_version) : ""));
    core::Candidate cand{rec.id, rec.op, rec.variant, rec.backend, source, rec.source_name, rec.flags, rec.note};
    cand.profile = rec.profile;  // a profile pass after the timing (docs/profiles.md)
    const auto form = core::parse_backend(rec.backend);
    if (form == core::Backend::cpu)
      return std::unique_ptr<eval::Evaluation>(
          new eval::CpuEvaluation(*spec, references, std::move(cand), opt, cpu, std::move(progress)));
    if (form && core::on_gpu(*form)) {
      auto e = eval::make_cuda_evaluation(*spec, references, std::move(cand), opt, cuda.options, cuda.device,
                                          std::move(progress));
      if (cuda.sessions && cuda.device.present && !cuda.device.any_of_class)
        if (auto s = cuda.sessions->take()) e->adopt_session(std::move(s));
      return std::unique_ptr<eval::Evaluation>(std::move(e));
    }
    return util::fail("backend", "backend '" + rec.backend + "' is not served here");
  };
}

std::filesystem::path reference_cache_path(const util::Settings& settings) {
  std::string set = settings.get("reference-cache");
  const std::string prefix = "<workspace>/";
  if (set.starts_with(prefix)) return std::filesystem::path(settings.get("workspace")) / set.substr(prefix.size());
  return set;
}

eval::CalibrationCache calibration_cache(const util::Settings& settings) {
  return eval::CalibrationCache::from_setting(settings.get("calibration-cache"));
}

std::filesystem::path library_path(const util::Settings& settings) {
  std::string set = settings.get("library");
  const std::string prefix = "<workspace>/";
  if (set.starts_with(prefix)) return std::filesystem::path(settings.get("workspace")) / set.substr(prefix.size());
  return set;
}

util::Result<std::unique_ptr<eval::Evaluation>> prepare_library_kernel(const exec::EvaluationFactory& factory,
                                                                       const store::CandidateRecord& like,
                                                                       const core::Candidate& kernel,
                                                                       const std::vector<std::string>& bench) {
  store::CandidateRecord rec = like;
  rec.id = kernel.id;
  rec.variant = kernel.variant;
  rec.backend = kernel.backend;
  rec.source_name = std::filesystem::path(kernel.source_name).filename().string();
  rec.flags = kernel.flags;
  rec.note = kernel.note;
  rec.bench = bench;
  return factory(rec, kernel.source, nullptr);
}

core::Verdict measure_library_kernel(const exec::EvaluationFactory& factory, const store::CandidateRecord& like,
                                     const core::Candidate& kernel) {
  auto made = prepare_library_kernel(factory, like, kernel, like.bench);
  if (!made) {
    core::Verdict v;
    v.op = kernel.op;
    v.variant = kernel.variant;
    v.backend = kernel.backend;
    v.status = core::Status::error;
    v.reason = made.error().what();
    return v;
  }
  return eval::run_to_verdict(**made);
}

AutoPromote::AutoPromote(const std::string& setting) {
  std::stringstream in(setting);
  for (std::string op; std::getline(in, op, ',');) {
    op.erase(0, op.find_first_not_of(" \t"));
    op.erase(op.find_last_not_of(" \t") + 1);
    if (op == "all") m_all = true;
    else if (op == "none") continue;
    else if (!op.empty()) m_ops.insert(op);
  }
}

}  // namespace kwb::app
