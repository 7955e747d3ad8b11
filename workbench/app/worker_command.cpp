// kwb worker --job DIR: a Slurm job's body (docs/fleet.md). Runs the candidate described in
// DIR/job.json through the same evaluation as the daemon (sandboxed compile for this node's CPU
// or GPU, then validate, benchmark, decide in the sandboxed runner), appends its stage events to
// DIR/progress.jsonl and writes DIR/result.json (the verdict) once, atomically. Its sandbox jobs,
// caches and device calibration live in the node-local worker-dir; the daemon's kwb.db is never
// opened here. The decide stage compares with the library's incumbent as the daemon's device lane
// does. Exit 0 once the result is written (whatever the verdict), 2 when it could not be
// (the daemon submits the job again, then gives an error verdict with this job's output).
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "analysis/analyzer.hpp"
#include "app/judging.hpp"
#include "app/commands.hpp"
#include "app/library_support.hpp"
#include "app/spec_sources.hpp"
#include "core/backend.hpp"
#include "core/verdict.hpp"
#include "eval/cpu_device.hpp"
#include "library/device_class.hpp"
#include "library/referee.hpp"
#include "store/device_repository.hpp"
#include "store/database.hpp"
#include "util/fs.hpp"

namespace kwb::app {

namespace {

int worker_fail(const std::string& what) {
  std::fprintf(stderr, "kwb worker: %s\n", what.c_str());
  return 2;
}

int64_t worker_epoch_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string worker_env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

util::Result<store::CandidateRecord> worker_candidate_of(const nlohmann::json& job) {
  if (!job.is_object() || !job.contains("candidate") || !job["candidate"].is_object())
    return util::fail("job", "job.json has no \"candidate\" object");
  const auto& c = job["candidate"];
  store::CandidateRecord rec;
  try {
    rec.id = c.at("id").get<std::string>();
    rec.op = c.at("op").get<std::string>();
    rec.variant = c.value("variant", "");
    rec.backend = c.at("backend").get<std::string>();
    rec.source_name = c.value("source_name", "");
    rec.flags = c.value("flags", std::vector<std::string>{});
    rec.bench = c.value("bench", std::vector<std::string>{});
    rec.note = c.value("note", "");
    rec.spec_version = c.value("spec_version", 0);
    rec.device_class = c.value("device_class", "");
    rec.profile = c.value("profile", false);
  } catch (const std::exception& e) {
    return util::fail("job", std::string("job.json: ") + e.what());
  }
  return rec;
}

// The decide stage's comparison, as kwb serve's device lane runs it: vendor baselines, then the
// library's incumbent timed interleaved with the still open evaluation on this node's device
// (library::Referee). The library is read from the shared workspace; the tuning records the
// Referee keeps go to this node's worker.db (the daemon stores the candidate's own from the
// verdict). Auto-promotion is the daemon's (not on Slurm yet: docs/fleet.md).
void worker_judge(const util::Settings& settings, const spec::Catalog& specs, const exec::EvaluationFactory& factory,
                  store::Database& db, const store::CandidateRecord& rec, const std::string& source, core::Verdict& v,
                  eval::Evaluation& evaluation) {
  auto repo = library::Repository::open(library_path(settings));  // the daemon made it; never seeded here
  if (!repo) {
    if (v.status == core::Status::accepted) v.reason += "; not compared with the library: " + repo.error().what();
    return;
  }
  Judging judging(repo->get(), db, specs, factory, JudgingConfig{policy_from(settings), true, "none"});
  judging.judge(rec, source, v, evaluation);
}

std::string worker_cuda_class(const eval::CudaDevice& d) {
  return "cuda-sm_" + std::to_string(d.cc_major) + std::to_string(d.cc_minor);
}

nlohmann::json worker_node_devices(store::Database& db, const eval::CpuDevice& cpu, const CudaBackend& cuda) {
  nlohmann::json out = nlohmann::json::array();
  store::DeviceRepository repo(db);
  auto add = [&](const std::string& id, const std::string& device_class) {
    auto rec = repo.find(id);
    if (!rec || !*rec) return;
    const auto& d = **rec;
    out.push_back({{"device_class", device_class},
                   {"device", {{"id", d.id}, {"kind", d.kind}, {"name", d.name}, {"copy_bytes_per_s", d.copy_bytes_per_s},
                               {"flops_per_s", d.flops_per_s ? nlohmann::json(*d.flops_per_s) : nlohmann::json(nullptr)},
                               {"calibration", d.details}, {"calibrated_at", d.calibrated_at}}}});
  };
  add(cpu.id, library::host_cpu_class());
  if (cuda.device.present) add(cuda.device.id, worker_cuda_class(cuda.device));
  return out;
}

int run_worker(const std::filesystem::path& dir, const util::Settings& settings) {
  const int64_t started_ms = worker_epoch_ms();
  auto text = util::read_file(dir / "job.json");
  if (!text) return worker_fail(text.error().what());
  auto job = nlohmann::json::parse(*text, nullptr, false);
  if (job.is_discarded()) return worker_fail((dir / "job.json").string() + " is not JSON");
  auto rec = worker_candidate_of(job);
  if (!rec) return worker_fail(rec.error().what());
  const std::string source = job["candidate"].value("source", "");
  const int attempt = job.value("attempt", 0);

  const std::filesystem::path local = settings.get("worker-dir");
  std::error_code ec;
  std::filesystem::create_directories(local / "jobs", ec);
  if (ec) return worker_fail("worker-dir " + local.string() + ": " + ec.message());
  auto db = store::Database::open(local / "worker.db");  // this node's device calibration
  if (!db) return worker_fail(db.error().what());
  auto catalog = load_catalog(settings);
  if (!catalog) return worker_fail(catalog.error().what());
  eval::EvalOptions opt = eval_options(settings);
  opt.workspace = local;  // sandbox jobs and compile caches on the node
  if (settings.get("reference-cache") == "<workspace>/cache/reference") opt.reference_cache = local / "cache" / "reference";
  auto cpu = eval::cpu_device(*db, calibration_cache(settings));
  if (!cpu) return worker_fail(cpu.error().what());
  // The GPU is looked for only for a GPU candidate (a cpu job may run on a node without one).
  const bool gpu = core::on_gpu(rec->backend);
  CudaBackend cuda = gpu ? find_cuda_backend(*db, opt) : CudaBackend{};
  // This node's devices with their calibration, for the daemon's GET /v1/devices (docs/fleet.md
  // "Device classes"): the CPU's, and the GPU's for a GPU candidate.
  nlohmann::json node_devices = worker_node_devices(*db, *cpu, cuda);
  const std::string node_class = gpu ? (cuda.device.present ? worker_cuda_class(cuda.device) : "") : library::host_cpu_class();
  auto factory = evaluation_factory(*catalog, opt, *cpu, cuda);

  int progress_fd = ::open((dir / "progress.jsonl").c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  std::mutex progress_mutex;
  eval::StageEventShaper shaper;
  auto progress = [&](const eval::StageEvent& e) {
    if (progress_fd < 0) return;
    std::lock_guard lock(progress_mutex);
    auto shaped = shaper(e);
    if (!shaped) return;
    // A stage event is the line itself; a progress event is {"progress": data} (a line without
    // "stage", which a daemon of before the relay skips).
    const nlohmann::json line = shaped->first == "stage" ? shaped->second : nlohmann::json{{"progress", shaped->second}};
    std::string s = line.dump() + "\n";
    (void)!::write(progress_fd, s.data(), s.size());  // one write per line (O_APPEND): never interleaved
  };
  core::Verdict v;
  if (auto made = factory(*rec, source, progress); !made) {
    v.candidate = rec->id;
    v.op = rec->op;
    v.variant = rec->variant;
    v.backend = rec->backend;
    v.status = core::Status::error;
    v.reason = made.error().what();
  } else {
    // The comparison runs inside the decide stage, before its end event.
    v = eval::run_to_verdict(**made, [&](core::Verdict& decided) {
      worker_judge(settings, *catalog, factory, *db, *rec, source, decided, **made);
    });
  }
  if (progress_fd >= 0) ::close(progress_fd);
  analysis::stop_workers();  // none outlives the job
  nlohmann::json result = {{"schema", "kwb.fleet-result.v1"},
                           {"job_id", worker_env_or("SLURM_JOB_ID", "")},
                           {"restart_count", std::atoi(worker_env_or("SLURM_RESTART_COUNT", "0").c_str())},
                           {"node", worker_env_or("SLURMD_NODENAME", "")},
                           {"attempt", attempt},
                           {"device_class", node_class},  // "" for a cuda job on a node without a GPU
                           {"devices", node_devices},
                           {"started_ms", started_ms},  // wall clock (docs/benchmarks/fleet.md)
                           {"finished_ms", worker_epoch_ms()},
                           {"verdict", core::to_json(v)}};
  if (auto w = util::write_file_durable(dir / "result.json", result.dump()); !w) return worker_fail(w.error().what());
  return 0;
}

}  // namespace

void add_worker_command(CLI::App& app, util::Settings& settings, int& code) {
  auto dir = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("worker",
                                 "Run one candidate's evaluation in a Slurm job (started by kwb serve --executor slurm)");
  cmd->add_option("--job", *dir, "The job folder kwb serve wrote (job.json); result.json is written there")->required();
  add_setting_flags(*cmd, settings);
  cmd->callback([dir, &settings, &code] { code = run_worker(*dir, settings); });
}

}  // namespace kwb::app
