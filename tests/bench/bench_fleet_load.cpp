// The daemon side at the rate of a 100-GPU fleet (issue #21 point 6; figures and method in
// docs/benchmarks/fleet.md "100 GPUs, simulated"). A benchmark that reports figures, not a test:
//   build/bin/bench_fleet_load [--gpus 100] [--device-ms 500] [--rate R] [--seconds 30]
//                              [--listeners 1] [--compile-workers 2] [--recorded FILE]
// In this process: the daemon's real store (SQLite in a temporary workspace), pipeline, event hub
// and HTTP server (api::Server on a free loopback port), with the SimulatedExecutor
// (fleet_sim_executor.hpp) in place of Slurm: `gpus` simulated devices, `device-ms` each per
// candidate, replaying recorded real evaluations (events and verdict). Load: candidates POSTed
// over HTTP at `rate` per second (open loop; default gpus * 1000 / device-ms, what the fleet can
// take), each followed by `listeners` SSE streams (GET /v1/candidates/{id}/events) from the
// moment its POST returns. Reported: achieved candidates/s, events/s, SQLite rows written/s,
// submit-to-verdict p50/p99 (POST sent -> the verdict event read from the first SSE stream), SSE
// fan-out lag p50/p99 (an event's stored time -> read by a listener), and the load average.
#include <sqlite3.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "api/server.hpp"
#include "exec/pipeline.hpp"
#include "fleet_sim_executor.hpp"
#include "spec/catalog.hpp"
#include "store/database.hpp"

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench_fleet_load: %s\n", what.c_str());
  std::exit(1);
}

int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// "2026-12-02T01:02:03.456Z" -> epoch ms (-1 when it is not that form).
int64_t iso_ms(const std::string& s) {
  std::tm tm{};
  int ms = 0;
  if (std::sscanf(s.c_str(), "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                  &tm.tm_sec, &ms) != 7)
    return -1;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return int64_t(timegm(&tm)) * 1000 + ms;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(p * double(v.size())))];
}

struct Args {
  int gpus = 100, device_ms = 500, seconds = 30, listeners = 1, compile_workers = 2;
  double rate = 0;
  std::string recorded = std::string(KWB_BENCH_SOURCE_DIR) + "/tests/bench/fleet_recorded.json";
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (i + 1 >= argc) die("missing value after " + k);
    std::string v = argv[++i];
    try {
      if (k == "--gpus") a.gpus = std::stoi(v);
      else if (k == "--device-ms") a.device_ms = std::stoi(v);
      else if (k == "--seconds") a.seconds = std::stoi(v);
      else if (k == "--listeners") a.listeners = std::stoi(v);
      else if (k == "--compile-workers") a.compile_workers = std::stoi(v);
      else if (k == "--rate") a.rate = std::stod(v);
      else if (k == "--recorded") a.recorded = v;
      else die("unknown option " + k);
    } catch (const std::exception&) {
      die(k + ": expected a number, got '" + v + "'");
    }
  }
  if (a.gpus < 1 || a.device_ms < 1 || a.seconds < 1 || a.listeners < 1 || a.compile_workers < 1)
    die("--gpus, --device-ms, --seconds, --listeners and --compile-workers must be positive");
  if (a.rate <= 0) a.rate = a.gpus * 1000.0 / a.device_ms;
  return a;
}

struct Figures {
  std::mutex mutex;
  std::vector<double> submit_to_verdict_ms, lag_ms;
  std::atomic<uint64_t> submitted{0}, refused{0}, verdicts{0}, events_read{0}, streams_failed{0};
  Clock::time_point last_verdict;
};

// One SSE stream of a candidate until it ends (after the terminal state).
void follow(int port, const std::string& id, Clock::time_point posted, bool first, Figures& fig) {
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(300, 0);
  const int64_t opened = wall_ms();
  std::string buffer;
  bool saw_verdict = false;
  auto r = c.Get("/v1/candidates/" + id + "/events", [&](const char* data, size_t n) {
    const int64_t now = wall_ms();
    buffer.append(data, n);
    size_t nl;
    while ((nl = buffer.find('\n')) != std::string::npos) {
      std::string line = buffer.substr(0, nl);
      buffer.erase(0, nl + 1);
      if (!line.starts_with("data: ")) continue;
      auto e = nlohmann::json::parse(line.substr(6), nullptr, false);
      if (!e.is_object()) continue;
      fig.events_read.fetch_add(1, std::memory_order_relaxed);
      const int64_t at = iso_ms(e.value("at", ""));
      std::lock_guard lock(fig.mutex);
      if (at >= opened) fig.lag_ms.push_back(double(now - at));  // replayed history is not lag
      if (first && e.value("kind", "") == "verdict") {
        saw_verdict = true;
        auto t = Clock::now();
        fig.submit_to_verdict_ms.push_back(std::chrono::duration<double, std::milli>(t - posted).count());
        fig.last_verdict = std::max(fig.last_verdict, t);
      }
    }
    return true;
  });
  if (!r || r->status != 200) fig.streams_failed.fetch_add(1);
  if (first && saw_verdict) fig.verdicts.fetch_add(1);
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  spdlog::set_level(spdlog::level::warn);  // one info line per verdict would be the benchmark's main cost
  std::string error;
  kwb::bench::SimFleetConfig sim{a.gpus, std::chrono::milliseconds(a.device_ms), kwb::bench::load_recorded_runs(a.recorded, &error)};
  if (sim.runs.empty()) die(error);
  char tmpl[] = "/tmp/kwb-fleet-load-XXXXXX";
  if (!::mkdtemp(tmpl)) die("mkdtemp failed");
  const std::filesystem::path ws = tmpl;
  auto db = kwb::store::Database::open(ws / "kwb.db");
  if (!db) die(db.error().what());
  kwb::store::ObjectStore objects(ws / "objects");
  auto catalog = kwb::spec::Catalog::load(std::filesystem::path(KWB_BENCH_SOURCE_DIR) / "specs");
  if (!catalog) die(catalog.error().what());
  kwb::exec::EventHub hub;
  auto executor = std::make_shared<kwb::bench::SimulatedExecutor>(sim);
  kwb::exec::PipelineConfig pcfg;
  pcfg.compile_workers = a.compile_workers;
  pcfg.executor = executor;
  kwb::exec::Ledger ledger(*db, hub);
  ledger.start();
  kwb::exec::Pipeline pipeline(*db, objects, kwb::bench::sim_front_factory(), ledger, pcfg);
  kwb::exec::IntakeConfig intake_cfg;
  intake_cfg.queue_quota = int64_t(1) << 40;  // one anonymous caller stands for the whole fleet of agents
  intake_cfg.rules.backends = {"cpu", "cuda", "cuda-launcher"};
  intake_cfg.rules.executor = "simulated";
  intake_cfg.rules.device_classes = executor->device_classes();
  kwb::exec::Intake intake(*db, objects, *catalog, ledger,
                           [&pipeline](const kwb::store::CandidateRecord& r) { pipeline.schedule(r); }, intake_cfg);
  kwb::api::Authenticator auth(*db, false);
  kwb::api::RateLimiter limiter(1e9, 1e9);
  kwb::api::ApiContext ctx{*db, objects, *catalog, pipeline, intake, hub, auth, limiter};
  ctx.limits.http.max_per_address = ctx.limits.http.max_connections;
  ctx.limits.http.max_streams = 2048;
  kwb::api::Server server(ctx);
  if (!server.bind("127.0.0.1", 0, &error)) die(error);
  if (auto r = pipeline.start(); !r) die(r.error().what());
  std::thread serving([&] { server.run(); });
  const int port = server.port();

  // Candidates of the recording's op and backend (nothing is compiled: the front is simulated).
  const std::string op = sim.runs[0].verdict.value("op", "vector_add");
  const std::string backend = sim.runs[0].verdict.value("backend", "cpu");
  const int64_t changes_before = sqlite3_total_changes64(db->handle());
  Figures fig;
  std::mutex listeners_mutex;
  std::vector<std::thread> listeners;
  const int submitters = 4;
  const auto t0 = Clock::now();
  const auto end = t0 + std::chrono::seconds(a.seconds);
  std::vector<std::thread> posting;
  for (int s = 0; s < submitters; ++s)
    posting.emplace_back([&, s] {
      httplib::Client c("127.0.0.1", port);
      c.set_keep_alive(true);
      c.set_read_timeout(60, 0);
      for (uint64_t k = s;; k += submitters) {
        const auto due = t0 + std::chrono::microseconds(int64_t(double(k) * 1e6 / a.rate));
        if (due >= end) break;
        std::this_thread::sleep_until(due);
        const auto posted = Clock::now();
        nlohmann::json body = {{"op", op}, {"backend", backend},
                               {"source", "// simulated candidate " + std::to_string(k) + "\nextern \"C\" void f() {}\n"}};
        auto r = c.Post("/v1/candidates", body.dump(), "application/json");
        if (!r || r->status != 202) {
          fig.refused.fetch_add(1);
          if (fig.refused.load() <= 3)
            std::fprintf(stderr, "bench_fleet_load: POST refused: %s\n", r ? (std::to_string(r->status) + " " + r->body).c_str() : "no answer");
          continue;
        }
        fig.submitted.fetch_add(1);
        const std::string id = nlohmann::json::parse(r->body)["id"];
        std::lock_guard lock(listeners_mutex);
        for (int l = 0; l < a.listeners; ++l) listeners.emplace_back(follow, port, id, posted, l == 0, std::ref(fig));
      }
    });
  for (auto& t : posting) t.join();
  const double submit_s = std::chrono::duration<double>(Clock::now() - t0).count();
  {
    std::lock_guard lock(listeners_mutex);
    for (auto& t : listeners) t.join();
  }
  const double total_s = std::chrono::duration<double>(fig.last_verdict - t0).count();
  const int64_t rows = sqlite3_total_changes64(db->handle()) - changes_before;
  int64_t events = 0;
  {
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db->handle(), "SELECT count(*) FROM events", -1, &st, nullptr);
    if (sqlite3_step(st) == SQLITE_ROW) events = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const double cpu_s = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  std::string loadavg;
  std::getline(std::ifstream("/proc/loadavg"), loadavg);

  hub.shutdown();
  server.stop();
  serving.join();
  pipeline.stop();
  executor->stop();
  std::error_code ec;
  std::filesystem::remove_all(ws, ec);

  const double n = double(fig.verdicts.load());
  std::printf("bench_fleet_load: %d simulated GPUs x %d ms per candidate, offered %.1f candidates/s for %d s, %d SSE "
              "listener(s) per candidate, %d compile workers\n",
              a.gpus, a.device_ms, a.rate, a.seconds, a.listeners, a.compile_workers);
  std::printf("  submitted %llu (refused %llu) in %.1f s; verdicts %llu; SSE streams failed %llu; waited for a GPU %llu\n",
              (unsigned long long)fig.submitted.load(), (unsigned long long)fig.refused.load(), submit_s,
              (unsigned long long)fig.verdicts.load(), (unsigned long long)fig.streams_failed.load(),
              (unsigned long long)executor->waited_for_gpu());
  std::printf("  achieved %.1f candidates/s (verdicts / first POST to last verdict, %.1f s)\n", n / total_s, total_s);
  std::printf("  events stored %lld: %.0f /s; SSE events read %llu: %.0f /s\n", (long long)events, double(events) / total_s,
              (unsigned long long)fig.events_read.load(), double(fig.events_read.load()) / total_s);
  std::printf("  SQLite rows written %lld: %.0f /s (%.1f per candidate)\n", (long long)rows, double(rows) / total_s,
              n > 0 ? double(rows) / n : 0.0);
  std::printf("  submit to verdict: p50 %.0f ms, p99 %.0f ms (device time %d ms)\n", percentile(fig.submit_to_verdict_ms, 0.5),
              percentile(fig.submit_to_verdict_ms, 0.99), a.device_ms);
  std::printf("  SSE fan-out lag (stored -> read): p50 %.0f ms, p99 %.0f ms over %zu events\n", percentile(fig.lag_ms, 0.5),
              percentile(fig.lag_ms, 0.99), fig.lag_ms.size());
  std::printf("  CPU of this process (daemon side and load clients): %.1f s, %.2f cores; load average %s\n", cpu_s,
              cpu_s / total_s, loadavg.c_str());
  return fig.verdicts.load() == fig.submitted.load() && fig.refused.load() == 0 ? 0 : 1;
}
