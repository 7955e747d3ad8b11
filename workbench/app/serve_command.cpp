// kwb serve: the daemon — HTTP API, durable pipeline, workspace database.
#include <signal.h>
#include <sys/stat.h>

#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "analysis/analyzer.hpp"
#include "api/gate_io.hpp"
#include "api/server.hpp"
#include "app/commands.hpp"
#include "app/judging.hpp"
#include "app/executor_setup.hpp"
#include "app/housekeeping.hpp"
#include "app/library_support.hpp"
#include "app/serve_support.hpp"
#include "app/spec_sources.hpp"
#include "core/backend.hpp"
#include "core/filters.hpp"
#include "eval/cpu_device.hpp"
#include "exec/pipeline.hpp"
#include "library/device_class.hpp"
#include "library/curator.hpp"
#include "library/referee.hpp"
#include "store/device_repository.hpp"
#include "store/janitor.hpp"
#include "store/token_repository.hpp"
#include "store/workspace.hpp"
#include "store/workspace_lock.hpp"
#include "util/fs.hpp"
#include "util/ignore.hpp"
#include "util/log.hpp"
#include "web/pages.hpp"

namespace kwb::app {

namespace {

struct ServeArgs {
  std::string host = "127.0.0.1";
  int port = 8470;
  std::string port_file;
  bool no_auth = false;
  int compile_workers = 0;
  int gpu_lane_depth = 4;
  int64_t queue_quota = 64;
  double rate = 200;
  int heartbeat_ms = 15000;
  api::GateLimits http;  // connections, timeouts (docs/security.md, "The HTTP API")
  int64_t cache_limit_mb = 1024;
  int64_t reserve_mb = 256;
  int64_t backup_interval_s = 86400;
  int backups_kept = 7;
  bool allow_empty_database = false;
  std::string log_format = "text";
};

int run_serve(const ServeArgs& a, const util::Settings& settings) {
  StopSignal stop_signal;  // before any thread is started: every thread inherits the blocked mask
  auto format = util::parse_log_format(a.log_format);
  if (!format) return std::fprintf(stderr, "kwb serve: --log-format '%s' is not one of text, json\n", a.log_format.c_str()), 2;
  util::set_log_format(*format);
  StartupLog log(*format);
  std::filesystem::path workspace = settings.get("workspace");
  // The port first: a port in use fails before a workspace, a database or a token is created.
  std::string bind_error;
  const int listening = api::listen_socket(a.host, a.port, &bind_error);
  if (listening < 0)
    return std::fprintf(stderr, "kwb serve: %s: another kwb serve or another program listens there; stop it, or choose "
                                "another port with --port (0: any free port). Nothing was created.\n",
                        bind_error.c_str()),
           2;
  std::error_code ws_ec;
  log.say("workspace", std::string(std::filesystem::is_regular_file(workspace / "kwb.db", ws_ec) ? "starting on workspace "
                                                                                             : "creating workspace ") +
                           workspace.string());
  // One daemon per workspace: a second one would re-run the first one's candidates.
  const std::string pid = std::to_string(::getpid());
  auto ws_lock = store::WorkspaceLock::acquire(workspace, "kwb serve (pid " + pid + ", starting since " + utc_now() + ")");
  if (!ws_lock) return std::fprintf(stderr, "kwb serve: %s\n", ws_lock.error().what().c_str()), 2;
  if (!a.allow_empty_database)
    if (auto ok = store::check_database_present(workspace); !ok)
      return std::fprintf(stderr, "kwb serve: %s (--allow-empty-database starts anyway)\n", ok.error().what().c_str()), 2;
  // Job folders of a killed daemon or `kwb eval` (no live process claims them).
  if (int n = store::remove_orphan_job_dirs(workspace / "jobs"); n > 0)
    std::printf("kwb serve: removed %d job folder(s) left by a stopped process\n", n);
  auto db = store::Database::open(workspace / "kwb.db");
  if (!db) return std::fprintf(stderr, "kwb serve: %s\n", db.error().what().c_str()), 2;
  store::Janitor janitor(store::workspace_janitor_config(workspace, uint64_t(std::max<int64_t>(0, a.cache_limit_mb)) << 20,
                                                         uint64_t(std::max<int64_t>(0, a.reserve_mb)) << 20));
  janitor.sweep();
  // A write that hits a full disk: evict caches (8 MiB beyond the reserve), then it is retried once.
  db->set_space_reliever([&janitor] {
    auto r = janitor.sweep(8u << 20);
    return r.evicted_files > 0 || r.removed_jobs > 0;
  });
  const std::filesystem::path library_dir = library_path(settings);
  const bool seeding = !std::filesystem::exists(library_dir, ws_ec);
  auto library = log.timed("library", "seeding the library " + library_dir.string() + " from " + settings.get("kernels-dir"),
                           seeding, [&] { return library::Repository::open_or_seed(library_dir, settings.get("kernels-dir")); });
  if (!library) return std::fprintf(stderr, "kwb serve: library: %s\n", library.error().what().c_str()), 2;
  if (seeding) log.say("library", "library seeded in " + fixed1(log.last_seconds()));
  auto catalog = load_catalog(settings, library->get());
  if (!catalog) return std::fprintf(stderr, "kwb serve: %s\n", catalog.error().what().c_str()), 2;
  std::error_code ec;
  if (!std::filesystem::exists(settings.get("runner"), ec))
    return std::fprintf(stderr, "kwb serve: kwb-runner not found at %s\n", settings.get("runner").c_str()), 2;
  const auto here = eval::detect_cpu();
  const auto machine_calibrations = calibration_cache(settings);
  auto stored = store::DeviceRepository(*db).find(here.id);
  auto cached = machine_calibrations.find(here.id);
  const bool calibrate = (!stored || !*stored) && (!cached || !*cached);
  auto device = log.timed("calibration",
                          "calibrating " + here.name + " for the roofline: one-thread copy bandwidth (once per machine, "
                          "stored in kwb.db" + (machine_calibrations.enabled() ? " and " + machine_calibrations.file().string() : "") +
                          "; seconds, longer on a busy machine)",
                          calibrate, [&] { return eval::cpu_device(*db, machine_calibrations); });
  if (!device) return std::fprintf(stderr, "kwb serve: %s\n", device.error().what().c_str()), 2;
  if (device->calibrated_now)
    log.say("calibration", fmt::format("CPU calibrated in {}: copy bandwidth {:.2f} GB/s", fixed1(log.last_seconds()),
                                       device->copy_bytes_per_s / 1e9));
  else if (device->calibration_source == "machine")
    log.say("calibration", fmt::format("CPU calibration taken from this machine's {}: copy bandwidth {:.2f} GB/s "
                                       "(kwb calibrate measures again)",
                                       machine_calibrations.file().string(), device->copy_bytes_per_s / 1e9));
  if (!device->cache_problem.empty()) log.say("calibration", "warning: " + device->cache_problem);

  store::ObjectStore objects(workspace / "objects");
  exec::EventHub hub;
  eval::EvalOptions opt = eval_options(settings);
  if (opt.gpu_clock != "events" && opt.gpu_clock != "cupti")
    return std::fprintf(stderr, "kwb serve: --gpu-clock '%s' is not one of events, cupti\n", opt.gpu_clock.c_str()), 2;
  spec::Catalog& specs = *catalog;  // grows at run time (POST /v1/specs)
  eval::CpuDevice cpu = *device;
  auto only_gpus = gpu_selection(settings.get("gpus"));
  if (!only_gpus) return std::fprintf(stderr, "kwb serve: %s\n", only_gpus.error().what().c_str()), 2;
  CudaBackend cuda = log.timed("cuda", "", false, [&] { return find_cuda_backend(*db, opt, /*every_gpu=*/true, *only_gpus); });
  if (cuda.device.calibrated_now || log.last_seconds() >= 1)
    log.say("cuda", "CUDA device " + std::string(cuda.device.calibrated_now ? "found and calibrated" : "looked for") +
                        " in " + fixed1(log.last_seconds()) + ": " + cuda.device.describe());
  // One timing lane per usable GPU of the class (docs/architecture.md "Lanes"), each with a
  // runner session started ahead on its own GPU; a GPU that failed its start-up gets none.
  const auto lane_gpus = cuda.lane_gpus();
  std::vector<exec::LaneConfig> gpu_lanes;
  for (const auto& g : cuda.gpus) {
    if (!g.present) {
      util::log_event(spdlog::level::warn, "gpu_unusable", {{"lane", g.key}, {"ordinal", g.ordinal}, {"reason", g.reason}});
      log.say("cuda", "GPU " + std::to_string(g.ordinal) + " (" + g.pci_bus_id + ") taken out of rotation: " + g.reason);
    } else if (g.id != cuda.device.id) {
      log.say("cuda", "GPU " + std::to_string(g.ordinal) + " (" + g.pci_bus_id + ", " + g.describe() +
                          ") is not used: candidates run on the " + std::to_string(lane_gpus.size()) + " GPU(s) of " +
                          cuda.device.describe());
    }
  }
  const eval::GpuSessionOptions pooled{cuda.options.gpu_runner, opt.bwrap, opt.workspace / "jobs", opt.run_timeout_ms,
                                       cuda.options.driver, false};
  if (cuda.device.present && !cuda.device.any_of_class)  // one GPU: evaluations are made bound to it
    cuda.sessions = std::make_shared<eval::GpuSessionPool>(eval::on_device(pooled, cuda.device));
  for (const auto& g : lane_gpus) {
    auto lane = std::make_shared<eval::DeviceLane>();
    lane->device = g;
    lane->sessions = cuda.device.any_of_class ? std::make_shared<eval::GpuSessionPool>(eval::on_device(pooled, g))
                                              : cuda.sessions;
    gpu_lanes.push_back({cuda.device.lane_class(), lane, a.gpu_lane_depth});
  }
  if (lane_gpus.size() > 1)
    log.say("cuda", std::to_string(lane_gpus.size()) + " timing lanes, one per GPU of " + cuda.device.describe());
  exec::EvaluationFactory factory = evaluation_factory(specs, opt, cpu, cuda, /*prebuild_references=*/true);
  // Static analysis: precompiled headers live in the workspace; build them off the request path.
  analysis::set_cache_dir(workspace / "cache" / "analysis");
  // Ended on every way out: no analyzer worker outlives the daemon (a warm-up could still be
  // writing the workspace's analysis cache). Declared before the pipeline, so it is ended after
  // the pipeline's evaluations, which may use the workers.
  struct WarmAnalysis {
    std::thread thread{[] {
      for (core::Backend b : core::k_backends) analysis::warm_up(std::string(core::backend_name(b)));
    }};
    ~WarmAnalysis() {
      analysis::stop_workers();
      thread.join();
    }
  } warm_analysis;
  exec::PipelineConfig pcfg;
  pcfg.lanes = gpu_lanes;
  pcfg.compile_workers = a.compile_workers > 0 ? a.compile_workers : int(std::max(1u, std::thread::hardware_concurrency()));
  library::Curator curator(*db, objects, **library, specs);
  library::SpecIntake spec_intake(**library, specs, spec_cache_dir(settings), spec_checks(settings));
  // The judging policy (app/judging.hpp): in the device lane after the decide stage the verdict's
  // baselines; after the stored verdict the comparison with the incumbent; then auto-promotion.
  pcfg.judge = std::make_shared<Judging>(library->get(), *db, specs, factory,
                                         JudgingConfig{policy_from(settings), true, settings.get("auto-promote")},
                                         &curator);
  auto executor = make_executor(settings, *db);  // local (null) or slurm: docs/fleet.md
  if (!executor) return std::fprintf(stderr, "kwb serve: %s\n", executor.error().what().c_str()), 2;
  pcfg.executor = *executor;
  if (pcfg.executor) log.say("executor", "device stages run on " + pcfg.executor->name() + " (docs/fleet.md)");
  exec::Ledger ledger(*db, hub);
  exec::Pipeline pipeline(*db, objects, factory, ledger, pcfg);
  exec::IntakeConfig intake_cfg;
  intake_cfg.queue_quota = a.queue_quota;
  intake_cfg.rules.backends = core::backend_names();  // all; cuda without a GPU: analysed and compiled, then no_device
  if (pcfg.executor) {  // the device classes a submission may ask for (docs/fleet.md "Device classes")
    intake_cfg.rules.executor = pcfg.executor->name();
    intake_cfg.rules.device_classes = pcfg.executor->device_classes();
  } else {
    intake_cfg.rules.device_classes.push_back({library::host_cpu_class(), "cpu", ""});
    if (cuda.device.present)
      intake_cfg.rules.device_classes.push_back(
          {fmt::format("cuda-sm_{}{}", cuda.device.cc_major, cuda.device.cc_minor), "cuda", ""});
  }
  exec::Intake intake(*db, objects, specs, ledger, [&pipeline](const store::CandidateRecord& r) { pipeline.schedule(r); },
                      intake_cfg);

  api::Authenticator auth(*db, !a.no_auth);
  if (!a.no_auth) ensure_admin_token(*db, workspace, log);
  api::RateLimiter limiter(a.rate, a.rate * 2);
  api::ApiContext ctx{*db, objects, specs, pipeline, intake, hub, auth, limiter};
  ctx.curator = &curator;
  ctx.spec_intake = &spec_intake;
  for (const auto& g : cuda.gpus)
    ctx.gpus.push_back({{"lane", g.key}, {"ordinal", g.ordinal}, {"pci_bus_id", g.pci_bus_id}, {"uuid", g.uuid},
                        {"name", g.name}, {"device_id", g.id},
                        {"status", !g.present ? "unusable" : g.id == cuda.device.id ? "ready" : "unused"},
                        {"reason", g.present ? nlohmann::json(nullptr) : nlohmann::json(g.reason)}});
  ctx.limits.heartbeat = std::chrono::milliseconds(a.heartbeat_ms);
  ctx.limits.http = a.http;
  ctx.janitor = &janitor;
  api::Server server(ctx, web::add_pages);  // the review pages at / (docs/web.md)
  server.adopt(listening);
  ledger.start();
  if (auto r = pipeline.start(); !r) return std::fprintf(stderr, "kwb serve: %s\n", r.error().what().c_str()), 2;
  ws_lock->describe("kwb serve (pid " + pid + ", port " + std::to_string(server.port()) + ", http://" + a.host + ":" +
                    std::to_string(server.port()) + ", since " + utc_now() + ")");
  Housekeeping housekeeping(janitor, {workspace / "kwb.db", workspace / "backups",
                                      std::chrono::seconds(std::max<int64_t>(0, a.backup_interval_s)), a.backups_kept});
  housekeeping.start();
  if (!a.port_file.empty())
    util::ignore(util::write_file_atomic(a.port_file, std::to_string(server.port()) + "\n"),
                 "TODO lead: the port file is not written, so whoever waits for it never learns the port");

  stop_signal.on_signal([&](int sig) {
    log.say("stop", "signal " + std::to_string(sig) +
                        ", stopping (evaluations in flight finish first, queued ones resume at the next start; a "
                        "second signal exits at once)");
    hub.shutdown();
    server.stop();
  });
  log.say("listening", fmt::format("listening on http://{}:{} (auth {}, {} compile workers, workspace {}, library {}, {}; "
                                   "started in {})",
                                   a.host, server.port(), a.no_auth ? "off" : "on", pcfg.compile_workers, workspace.string(),
                                   (*library)->path().string(), cuda.device.describe(), fixed1(log.since_start())));
  server.run();
  stop_signal.stopping();
  hub.shutdown();
  pipeline.stop();
  ledger.stop();
  housekeeping.stop();
  return 0;
}

// The HTTP front door's limits (api/http_limits.hpp).
void add_http_limit_flags(CLI::App& cmd, api::GateLimits& h) {
  auto ms = [&cmd](const char* name, std::chrono::milliseconds& v, const char* what) {
    cmd.add_option_function<int64_t>(name, [&v](int64_t x) { v = std::chrono::milliseconds(x); }, what)
        ->check(CLI::Range(int64_t(1), int64_t(3600000)))
        ->default_str(std::to_string(v.count()));
  };
  ms("--header-timeout-ms", h.header_timeout, "Time a client has to send a request's line and headers");
  ms("--body-timeout-ms", h.body_timeout, "Time a client has to send a request's body");
  ms("--idle-timeout-ms", h.idle_timeout, "Keep-alive: time until the next request's first byte");
  cmd.add_option("--max-connections-per-address", h.max_per_address, "Connections open at once from one address")
      ->check(CLI::Range(1, 100000))->default_val(h.max_per_address);
  cmd.add_option("--max-streams", h.max_streams, "Event streams and ?wait= long-polls open at once")
      ->check(CLI::Range(1, 100000))->default_val(h.max_streams);
  cmd.add_option("--request-threads", h.request_threads, "Workers for ordinary requests")
      ->check(CLI::Range(1, 1024))->default_val(h.request_threads);
}

}  // namespace

void add_serve_command(CLI::App& app, util::Settings& settings, int& code) {
  auto a = std::make_shared<ServeArgs>();
  auto* cmd = app.add_subcommand("serve", "Run the workbench daemon: HTTP API on loopback, durable evaluation pipeline");
  cmd->add_option("--host", a->host, "Address to bind (default loopback only)")->default_val("127.0.0.1");
  cmd->add_option("--port", a->port, "Port (0: any free port)")->default_val(8470);
  cmd->add_option("--port-file", a->port_file, "Write the bound port to this file once listening");
  cmd->add_flag("--no-auth", a->no_auth, "Accept requests without a token (every caller is admin)");
  cmd->add_option("--compile-workers", a->compile_workers, "Compile pool size (default: one per core)");
  cmd->add_option("--gpu-lane-depth", a->gpu_lane_depth,
                  "Candidates each GPU lane holds at once (1-8): the others' trusted CPU work (inputs, references, "
                  "checks) runs while one candidate's command runs on the GPU, each command alone on it; 1: one "
                  "candidate at a time")
      ->default_val(4)
      ->check(CLI::Range(1, 8));
  cmd->add_option("--queue-quota", a->queue_quota, "Candidates queued or in flight per token")->default_val(64);
  cmd->add_option("--rate", a->rate, "Requests per second per token (burst: twice this)")->default_val(200);
  cmd->add_option("--heartbeat-ms", a->heartbeat_ms, "Event-stream heartbeat interval")->default_val(15000);
  add_http_limit_flags(*cmd, a->http);
  cmd->add_option("--cache-limit-mb", a->cache_limit_mb,
                  "Size limit of each cache under <workspace>/cache (analysis PCHs, cpu, nvcc, cubin), MiB")
      ->default_val(1024);
  cmd->add_option("--reserve-mb", a->reserve_mb,
                  "Free space kept for the database, MiB: below it the caches are evicted and /v1/health is degraded")
      ->default_val(256);
  cmd->add_option("--backup-interval-s", a->backup_interval_s,
                  "Online backup of kwb.db into <workspace>/backups every this many seconds (0: none)")
      ->default_val(86400);
  cmd->add_option("--backups-kept", a->backups_kept, "Backups kept in <workspace>/backups (oldest removed)")->default_val(7);
  cmd->add_option("--log-format", a->log_format,
                  "text: plain lines; json: one JSON object per line (start-up, requests, verdicts; docs/api.md \"Logs\")")
      ->default_val("text");
  cmd->add_flag("--allow-empty-database", a->allow_empty_database,
                "Start even though kwb.db is missing or empty while the workspace holds data (a lost database)");
  add_setting_flags(*cmd, settings);
  cmd->callback([a, &settings, &code] { code = run_serve(*a, settings); });
}

}  // namespace kwb::app
