// What the review pages' data costs with 10 000 candidates in the store (issue #20; figures in
// docs/benchmarks/daemon.md "Review pages"). A benchmark that reports figures, not a test:
//   build/bin/bench_web_routes [CANDIDATES] [REPETITIONS]
// 1. A real `kwb serve` evaluates one real candidate (the shipped vectorized vector_add).
// 2. The daemon stopped, its row is copied CANDIDATES-1 times in one SQL transaction (fresh ids
//    and sequence numbers, a random geomean against the incumbent in each verdict, all accepted:
//    the leaderboard's worst case) — a fill, not the submission path, which would take hours.
// 3. The daemon started again on that workspace; each route the pages call is timed over HTTP,
//    REPETITIONS times: median and p95 in ms.
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "daemon_support.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using kwb::test::DaemonProcess;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench_web_routes: %s\n", what.c_str());
  std::exit(1);
}

void exec(sqlite3* db, const std::string& sql) {
  char* msg = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) die(std::string("sqlite: ") + (msg ? msg : "?"));
}

// Copies candidate `id` n-1 times: fresh ids and seqs, verdicts with their own id and speed-up.
void fill(const std::filesystem::path& db_file, const std::string& id, int n) {
  sqlite3* db = nullptr;
  if (sqlite3_open(db_file.c_str(), &db) != SQLITE_OK) die("cannot open " + db_file.string());
  exec(db, "BEGIN");
  exec(db, "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < " + std::to_string(n - 1) + ") "
           "INSERT INTO candidates (id, seq, token_id, op, variant, backend, source_sha256, source_name, flags, note, "
           "parent, idempotency_key, state, cancel_requested, attempts, status, verdict, created_at, updated_at, "
           "finished_at, bench) "
           "SELECT printf('c-%016x', 4096 + i), (SELECT max(seq) FROM candidates) + i, token_id, op, variant, backend, "
           "source_sha256, source_name, flags, 'bench copy ' || i, NULL, NULL, state, 0, attempts, status, "
           "json_set(verdict, '$.candidate', printf('c-%016x', 4096 + i), '$.summary.geomean_vs_incumbent', "
           "0.5 + (abs(random()) % 1500) / 1000.0), created_at, updated_at, finished_at, bench "
           "FROM candidates, k WHERE candidates.id = '" + id + "'");
  exec(db, "UPDATE candidates SET speedup = json_extract(verdict, '$.summary.geomean_vs_incumbent')");
  exec(db, "COMMIT");
  sqlite3_close(db);
}

struct Figure {
  std::string route;
  double median_ms, p95_ms;
  size_t bytes;
};

Figure time_route(httplib::Client& c, const std::string& path, int reps) {
  std::vector<double> ms;
  size_t bytes = 0;
  for (int i = 0; i < reps + 1; ++i) {
    auto t = Clock::now();
    auto r = c.Get(path);
    double d = std::chrono::duration<double, std::milli>(Clock::now() - t).count();
    if (!r || r->status != 200) die("GET " + path + ": " + (r ? std::to_string(r->status) + " " + r->body : "no answer"));
    bytes = r->body.size();
    if (i > 0) ms.push_back(d);  // the first warms the page cache
  }
  std::sort(ms.begin(), ms.end());
  return {path, ms[ms.size() / 2], ms[std::min(ms.size() - 1, size_t(double(ms.size()) * 0.95))], bytes};
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 10000;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 30;
  if (n < 2 || reps < 1) die("usage: bench_web_routes [CANDIDATES >= 2] [REPETITIONS >= 1]");
  char tmpl[] = "/tmp/kwb-bench-web-XXXXXX";
  if (!::mkdtemp(tmpl)) die("mkdtemp failed");
  const std::filesystem::path ws = std::filesystem::path(tmpl) / "ws";
  DaemonProcess d;
  std::string error;
  const std::vector<std::string> args = {"--no-auth", "--time-budget-ms", "100"};
  if (!d.start(args, ws, &error)) die(error);
  httplib::Client c("127.0.0.1", d.port());
  c.set_read_timeout(300, 0);
  const std::string source = kwb::test::read_text(kwb::test::source_dir() / "kernels/vector_add/cpu/vectorized.cpp");
  nlohmann::json body = {{"op", "vector_add"}, {"source", source}, {"source_name", "vectorized.cpp"}};
  auto sub = c.Post("/v1/candidates", body.dump(), "application/json");
  if (!sub || sub->status != 202) die("submit failed: " + (sub ? sub->body : std::string("no answer")));
  const std::string id = nlohmann::json::parse(sub->body)["id"];
  for (;;) {
    auto r = c.Get("/v1/candidates/" + id + "?wait=30");
    if (!r || r->status != 200) die("wait failed");
    auto j = nlohmann::json::parse(r->body);
    if (j["state"] == "done") {
      if (j["status"] != "accepted") die("the seed candidate was not accepted: " + j["verdict"].value("reason", ""));
      break;
    }
  }
  d.stop();
  auto t = Clock::now();
  fill(ws / "kwb.db", id, n);
  std::printf("filled the store with %d candidates in %.1f s\n", n,
              std::chrono::duration<double>(Clock::now() - t).count());
  if (!d.start(args, ws, &error)) die(error);
  httplib::Client c2("127.0.0.1", d.port());
  c2.set_read_timeout(300, 0);
  const std::string mid = "c-" + [] {
    char b[17];
    std::snprintf(b, sizeof b, "%016x", 4096 + 5000);
    return std::string(b);
  }();
  const std::vector<std::string> routes = {
      "/v1/leaderboard/vector_add?limit=25",
      "/v1/leaderboard/vector_add?limit=25&offset=5000",
      "/v1/leaderboard/vector_add?limit=25&sort=newest&decision=pending",
      "/v1/candidates?op=vector_add&status=accepted&limit=25",
      "/v1/candidates/" + id,
      "/v1/candidates/" + mid,
      "/v1/candidates/" + mid + "/diff",
      "/v1/candidates/" + mid + "/source",
      "/v1/candidates/" + id + "/events",
      "/v1/library/vector_add",
      "/",
  };
  std::printf("| route | median ms | p95 ms | bytes |\n|---|---:|---:|---:|\n");
  for (const auto& r : routes) {
    Figure f = time_route(c2, r, reps);
    std::printf("| `%s` | %.1f | %.1f | %zu |\n", f.route.c_str(), f.median_ms, f.p95_ms, f.bytes);
  }
  d.stop();
  if (std::getenv("KWB_BENCH_KEEP")) {  // to profile the queries on the filled store (sqlite3 ws/kwb.db)
    std::printf("kept the workspace: %s\n", ws.c_str());
    return 0;
  }
  std::error_code ec;
  std::filesystem::remove_all(tmpl, ec);
  return 0;
}
