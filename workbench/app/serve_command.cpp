// kwb serve: the daemon — HTTP API, durable pipeline, workspace database.
#include <signal.h>
#include <sys/stat.h>

#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <thread>

#include <spdlog/spdlog.h>

#include "analysis/analyzer.hpp"
#include "api/server.hpp"
#include "app/commands.hpp"
#include "app/baseline_judge.hpp"
#include "app/housekeeping.hpp"
#include "app/library_support.hpp"
#include "app/spec_sources.hpp"
#include "eval/cpu_device.hpp"
#include "exec/pipeline.hpp"
#include "library/curator.hpp"
#include "library/referee.hpp"
#include "store/janitor.hpp"
#include "store/token_repository.hpp"
#include "store/workspace.hpp"
#include "store/workspace_lock.hpp"
#include "util/fs.hpp"

namespace kwb::app {

namespace {

struct ServeArgs {
  std::string host = "127.0.0.1";
  int port = 8470;
  std::string port_file;
  bool no_auth = false;
  int compile_workers = 0;
  int64_t queue_quota = 64;
  double rate = 50;
  int heartbeat_ms = 15000;
  api::GateLimits http;  // connections, timeouts (docs/security.md, "The HTTP API")
  int64_t cache_limit_mb = 1024;
  int64_t reserve_mb = 256;
  int64_t backup_interval_s = 86400;
  int backups_kept = 7;
  bool allow_empty_database = false;
};

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}


// Bootstrap: with auth on and no token at all, create an admin token once and keep it in
// <workspace>/admin.token (mode 0600) so the operator can create agent tokens.
void ensure_admin_token(store::Database& db, const std::filesystem::path& workspace) {
  store::TokenRepository tokens(db);
  auto all = tokens.all();
  if (!all || !all->empty()) return;
  auto secret = tokens.create("bootstrap-admin", "admin");
  if (!secret) return;
  auto file = workspace / "admin.token";
  if (util::write_file_atomic(file, *secret + "\n")) ::chmod(file.c_str(), 0600);
  std::printf("kwb serve: created the first admin token, saved in %s\n", file.c_str());
}

int run_serve(const ServeArgs& a, const util::Settings& settings) {
  std::filesystem::path workspace = settings.get("workspace");
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
  auto library = library::Repository::open_or_seed(library_path(settings), settings.get("kernels-dir"));
  if (!library) return std::fprintf(stderr, "kwb serve: library: %s\n", library.error().what().c_str()), 2;
  auto catalog = load_catalog(settings, library->get());
  if (!catalog) return std::fprintf(stderr, "kwb serve: %s\n", catalog.error().what().c_str()), 2;
  std::error_code ec;
  if (!std::filesystem::exists(settings.get("runner"), ec))
    return std::fprintf(stderr, "kwb serve: kwb-runner not found at %s\n", settings.get("runner").c_str()), 2;
  auto device = eval::cpu_device(*db);
  if (!device) return std::fprintf(stderr, "kwb serve: %s\n", device.error().what().c_str()), 2;

  store::ObjectStore objects(workspace / "objects");
  exec::EventHub hub;
  eval::EvalOptions opt = eval_options(settings);
  if (opt.gpu_clock != "events" && opt.gpu_clock != "cupti")
    return std::fprintf(stderr, "kwb serve: --gpu-clock '%s' is not one of events, cupti\n", opt.gpu_clock.c_str()), 2;
  spec::Catalog& specs = *catalog;  // grows at run time (POST /v1/specs)
  eval::CpuDevice cpu = *device;
  CudaBackend cuda = find_cuda_backend(*db, opt);
  if (cuda.device.present)  // the next GPU evaluation finds its sandboxed runner already started
    cuda.sessions = std::make_shared<eval::GpuSessionPool>(eval::GpuSessionOptions{
        cuda.options.gpu_runner, opt.bwrap, opt.workspace / "jobs", opt.run_timeout_ms, cuda.options.driver, false});
  exec::EvaluationFactory factory = evaluation_factory(specs, opt, cpu, cuda, /*prebuild_references=*/true);
  // Static analysis: precompiled headers live in the workspace; build them off the request path.
  analysis::set_cache_dir(workspace / "cache" / "analysis");
  std::thread([] {
    analysis::warm_up("cpu");
    analysis::warm_up("cuda");
    analysis::warm_up("cuda-launcher");
  }).detach();
  exec::PipelineConfig pcfg;
  pcfg.compile_workers = a.compile_workers > 0 ? a.compile_workers : int(std::max(1u, std::thread::hardware_concurrency()));
  library::Policy policy;
  policy.decide_budget_ms = int(settings.get_int("decide-budget-ms"));
  library::Referee referee(**library, *db, policy);
  library::Curator curator(*db, objects, **library, specs);
  library::SpecIntake spec_intake(**library, specs, spec_cache_dir(settings), spec_checks(settings));
  AutoPromote auto_promote(settings.get("auto-promote"));
  // In the device lane after the decide stage: compare with the incumbent, then (policy) promote,
  // so a winner's decision exists by the time its verdict is visible.
  BaselineJudge baselines(specs);
  pcfg.judge = [&referee, &factory, &curator, &baselines, auto_promote](const store::CandidateRecord& rec,
                                                                        const std::string& source, core::Verdict& v,
                                                                        eval::Evaluation& evaluation) {
    core::Candidate cand{rec.id, rec.op, v.variant, rec.backend, source, rec.source_name, rec.flags, rec.note};
    store::CandidateRecord pinned = rec;  // the library kernels are judged under the candidate's spec version
    pinned.spec_version = v.spec_version;
    baselines.judge(v, [&](const core::Candidate& k, const std::vector<std::string>& bench) {
      store::CandidateRecord like = pinned;
      like.backend = k.backend;
      like.bench = bench;
      return measure_library_kernel(factory, like, k);
    });
    referee.judge(cand, v, &evaluation, [&](const core::Candidate& inc, const std::vector<std::string>& bench) {
      return prepare_library_kernel(factory, pinned, inc, bench);
    });
    if (!auto_promote.covers(rec.op) || v.status != core::Status::accepted || !v.summary.beats_incumbent.value_or(false))
      return;
    auto o = curator.promote_evaluated(cand, v, "auto-promote");
    if (o.code == library::Outcome::Code::ok) {
      v.reason += "; auto-promoted in library commit " + o.body["commit"].get<std::string>();
      spdlog::info("auto-promoted {}: commit {}", rec.id, o.body["commit"].get<std::string>());
    } else {
      v.reason += "; auto-promotion refused: " + o.message;
    }
  };
  exec::Pipeline pipeline(*db, objects, factory, hub, pcfg);

  api::Authenticator auth(*db, !a.no_auth);
  if (!a.no_auth) ensure_admin_token(*db, workspace);
  api::RateLimiter limiter(a.rate, a.rate * 2);
  api::ApiContext ctx{*db, objects, specs, pipeline, hub, auth, limiter};
  ctx.limits.queue_quota = a.queue_quota;
  ctx.curator = &curator;
  ctx.spec_intake = &spec_intake;
  ctx.backends = {"cpu", "cuda", "cuda-launcher"};  // cuda without a GPU: analysed and compiled, then no_device
  ctx.limits.heartbeat = std::chrono::milliseconds(a.heartbeat_ms);
  ctx.limits.http = a.http;
  ctx.janitor = &janitor;
  api::Server server(ctx);
  std::string error;
  if (!server.bind(a.host, a.port, &error)) return std::fprintf(stderr, "kwb serve: %s\n", error.c_str()), 2;
  if (auto r = pipeline.start(); !r) return std::fprintf(stderr, "kwb serve: %s\n", r.error().what().c_str()), 2;
  ws_lock->describe("kwb serve (pid " + pid + ", port " + std::to_string(server.port()) + ", http://" + a.host + ":" +
                    std::to_string(server.port()) + ", since " + utc_now() + ")");
  Housekeeping housekeeping(janitor, {workspace / "kwb.db", workspace / "backups",
                                      std::chrono::seconds(std::max<int64_t>(0, a.backup_interval_s)), a.backups_kept});
  housekeeping.start();
  if (!a.port_file.empty()) util::write_file_atomic(a.port_file, std::to_string(server.port()) + "\n");

  // SIGINT/SIGTERM stop the server; the pipeline's in-flight work is resumed at the next start.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&set, &sig);
    std::printf("kwb serve: signal %d, stopping\n", sig);
    hub.shutdown();
    server.stop();
  });
  waiter.detach();
  std::printf("kwb serve: listening on http://%s:%d (auth %s, %d compile workers, workspace %s, library %s, %s)\n",
              a.host.c_str(), server.port(), a.no_auth ? "off" : "on", pcfg.compile_workers, workspace.c_str(),
              (*library)->path().c_str(), cuda.device.describe().c_str());
  std::fflush(stdout);
  server.run();
  hub.shutdown();
  pipeline.stop();
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
  cmd->add_option("--queue-quota", a->queue_quota, "Candidates queued or in flight per token")->default_val(64);
  cmd->add_option("--rate", a->rate, "Requests per second per token (burst: twice this)")->default_val(50);
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
  cmd->add_flag("--allow-empty-database", a->allow_empty_database,
                "Start even though kwb.db is missing or empty while the workspace holds data (a lost database)");
  add_setting_flags(*cmd, settings);
  cmd->callback([a, &settings, &code] { code = run_serve(*a, settings); });
}

}  // namespace kwb::app
