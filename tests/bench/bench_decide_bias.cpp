// Identical code must never win (issue #32): a real `kwb serve` whose library holds a deliberately
// slow vector_add as the CPU incumbent, one core kept busy by a spinning process, and N exact
// copies of the incumbent (another sha256, the same code) and N honest faster kernels (the shipped
// kernels/vector_add/cpu/vectorized.cpp) submitted in batches; each candidate's decision is
// awaited and tabled: promotable counts, and per bench workload the ratios, intervals and labels
// (docs/benchmarks/decide.md "Identical code under a busy core"). A benchmark that reports
// figures, not a test:
//   build/bin/bench_decide_bias [--n N] [--batch B] [--no-spinner] [--decide-budget-ms MS]
//                               [--kwb PATH] [--report FILE.jsonl] [--keep]
// N (default 3) copies and N honest kernels, submitted B at a time (default 10, copies and honest
// kernels alternating); --kwb runs another build's kwb (its kwb-runner beside it), e.g. one from
// before a fix; --report writes one JSON line per candidate; --keep keeps the workspace (the
// daemon's log is its serve.log).
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "daemon_support.hpp"

namespace {

using kwb::test::DaemonProcess;
using nlohmann::json;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench_decide_bias: %s\n", what.c_str());
  std::exit(1);
}

// The incumbent: 8 redundant passes over the data, each store through a volatile pointer.
const char* k_slow = R"(// vector_add, CPU: deliberately slow (8 redundant passes, volatile stores), the bench incumbent.
#include <cstdint>
extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  volatile float* vc = c;
  for (int pass = 0; pass < 8; ++pass)
    for (int64_t i = 0; i < n; ++i) vc[i] = a[i] + b[i];
}
)";

struct Options {
  int n = 3, batch = 10, decide_budget_ms = 3000;
  bool spinner = true, keep = false;
  std::string kwb, report;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--n") o.n = std::atoi(value().c_str());
    else if (a == "--batch") o.batch = std::atoi(value().c_str());
    else if (a == "--decide-budget-ms") o.decide_budget_ms = std::atoi(value().c_str());
    else if (a == "--no-spinner") o.spinner = false;
    else if (a == "--kwb") o.kwb = value();
    else if (a == "--report") o.report = value();
    else if (a == "--keep") o.keep = true;
    else die("unknown argument " + a + " (usage: bench_decide_bias [--n N] [--batch B] [--no-spinner] "
             "[--decide-budget-ms MS] [--kwb PATH] [--report FILE.jsonl] [--keep])");
  }
  if (o.n < 1 || o.batch < 1 || o.decide_budget_ms < 1) die("--n, --batch and --decide-budget-ms must be positive");
  return o;
}

// A kernels/ folder whose only kernel is the slow vector_add.
std::filesystem::path slow_kernels(const std::filesystem::path& root) {
  auto dir = root / "kernels" / "vector_add" / "cpu";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "slow.cpp") << k_slow;
  std::ofstream(dir / "slow.json") << R"({"op": "vector_add", "variant": "f32", "backend": "cpu",
    "entry": "kwb_vector_add_f32", "summary": "slow bench incumbent", "author": "bench"})";
  return root / "kernels";
}

pid_t start_spinner() {
  pid_t pid = ::fork();
  if (pid < 0) die("fork failed");
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    volatile unsigned long x = 0;
    for (;;) x = x + 1;
  }
  return pid;
}

struct Outcome {
  std::string kind, id;  // "copy" | "honest"
  bool decided = false, promotable = false;
  std::string reason;
  std::map<std::string, json> comparisons;  // bench workload -> its interleaved comparison
  double load = 0;
  int running_max = 0;
};

Outcome await(httplib::Client& c, const std::string& kind, const std::string& id) {
  Outcome o{kind, id};
  for (int polls = 0; polls < 60; ++polls) {  // up to an hour per candidate
    auto r = c.Get("/v1/candidates/" + id + "?wait=60");
    if (!r || r->status != 200) die("GET /v1/candidates/" + id + ": " + (r ? r->body : std::string("no answer")));
    json j = json::parse(r->body);
    if (j["state"] == "cancelled") return o.reason = "cancelled", o;
    if (j["state"] != "done" || j["comparison"].value("state", "") == "pending") continue;
    const json& v = j["verdict"];
    o.decided = true;
    if (v.value("status", "") != "accepted") return o.reason = v.value("status", "") + ": " + v.value("reason", ""), o;
    const json& d = v["summary"]["decision"];
    o.promotable = d.is_object() && d.value("promotable", false);
    o.reason = d.is_object() ? d.value("reason", "") : v.value("reason", "");
    for (const auto& w : v["workloads"])
      if (w.value("kind", "") == "bench" && w.contains("comparison") && w["comparison"].is_object())
        o.comparisons[w["name"]] = w["comparison"];
    const json& m = v["summary"]["machine"];
    if (m.is_object()) o.load = m.value("load_avg_1m", 0.0), o.running_max = m.value("running_max", 0);
    return o;
  }
  o.reason = "no decision within an hour";
  return o;
}

std::string cell(const json& c) {
  if (!c.is_object()) return "-";
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.3f [%.3f, %.3f] %s", c.value("ratio", 0.0), c.value("low", 0.0),
                c.value("high", 0.0), c.value("label", "?").c_str());
  return buf;
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(q * double(v.size() - 1) + 0.5))];
}

void summary(const std::vector<Outcome>& all, const std::string& kind, const std::vector<std::string>& workloads) {
  int total = 0, promotable = 0, undecided_any = 0, failed = 0;
  std::map<std::string, std::vector<double>> ratios, lows, highs;
  std::map<std::string, std::map<std::string, int>> labels;
  for (const auto& o : all) {
    if (o.kind != kind) continue;
    ++total;
    if (!o.decided || o.comparisons.empty()) ++failed;
    if (o.promotable) ++promotable;
    bool undecided = false;
    for (const auto& [w, c] : o.comparisons) {
      ratios[w].push_back(c.value("ratio", 0.0));
      lows[w].push_back(c.value("low", 0.0));
      highs[w].push_back(c.value("high", 0.0));
      ++labels[w][c.value("label", "?")];
      undecided = undecided || c.value("label", "") == "undecided";
    }
    if (undecided) ++undecided_any;
  }
  std::printf("\n%s: %d candidates, %d promotable, %d with an undecided workload, %d not compared\n", kind.c_str(),
              total, promotable, undecided_any, failed);
  std::printf("| workload | ratio min / median / max | interval low min / high max | labels |\n|---|---|---|---|\n");
  for (const auto& w : workloads) {
    std::string l;
    for (const auto& [label, count] : labels[w]) l += (l.empty() ? "" : ", ") + label + " " + std::to_string(count);
    std::printf("| %s | %.3f / %.3f / %.3f | %.3f / %.3f | %s |\n", w.c_str(), quantile(ratios[w], 0),
                quantile(ratios[w], 0.5), quantile(ratios[w], 1), quantile(lows[w], 0), quantile(highs[w], 1), l.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse(argc, argv);
  char tmpl[] = "/tmp/kwb-bench-decide-XXXXXX";
  if (!::mkdtemp(tmpl)) die("mkdtemp failed");
  const std::filesystem::path root = tmpl;
  const auto kernels = slow_kernels(root);
  DaemonProcess d;
  if (!opt.kwb.empty()) d.use_binary(opt.kwb);
  std::string error;
  const std::vector<std::string> args = {"--no-auth", "--kernels-dir", kernels.string(), "--specs-dir",
                                         (kwb::test::source_dir() / "specs").string(), "--decide-budget-ms",
                                         std::to_string(opt.decide_budget_ms)};
  if (!d.start(args, root / "ws", &error)) die(error);
  const pid_t spinner = opt.spinner ? start_spinner() : -1;
  httplib::Client c("127.0.0.1", d.port());
  c.set_read_timeout(120, 0);
  const std::string honest = kwb::test::read_text(kwb::test::source_dir() / "kernels/vector_add/cpu/vectorized.cpp");
  std::ofstream report;
  if (!opt.report.empty()) report.open(opt.report, std::ios::app);
  std::printf("kwb serve %s, %d copies of the slow incumbent and %d honest kernels, batches of %d, %s, decide budget "
              "%d ms\n",
              opt.kwb.empty() ? "(this build)" : opt.kwb.c_str(), opt.n, opt.n, opt.batch,
              opt.spinner ? "a spinning process on one core" : "no spinner", opt.decide_budget_ms);
  std::printf("| # | kind | n1M | n16M | promotable | load | runnable |\n|---:|---|---|---|---|---:|---:|\n");
  std::vector<Outcome> all;
  const auto started = std::chrono::steady_clock::now();
  int made = 0;
  while (made < 2 * opt.n) {
    std::vector<std::pair<std::string, std::string>> batch;  // kind, id
    for (int k = 0; k < opt.batch && made < 2 * opt.n; ++k, ++made) {
      const bool copy = made % 2 == 0;
      const std::string tag = "// bench_decide_bias " + std::to_string(::getpid()) + " #" + std::to_string(made) + "\n";
      const std::string source = tag + (copy ? std::string(k_slow) : honest);
      json body = {{"op", "vector_add"}, {"source", source}, {"source_name", copy ? "copy.cpp" : "vectorized.cpp"}};
      auto r = c.Post("/v1/candidates", body.dump(), "application/json");
      if (!r || r->status != 202) die("submit failed: " + (r ? r->body : std::string("no answer")));
      batch.push_back({copy ? "copy" : "honest", json::parse(r->body)["id"]});
    }
    for (const auto& [kind, id] : batch) {
      Outcome o = await(c, kind, id);
      all.push_back(o);
      std::printf("| %zu | %s | %s | %s | %s | %.1f | %d |\n", all.size(), kind.c_str(), cell(o.comparisons["n1M"]).c_str(),
                  cell(o.comparisons["n16M"]).c_str(), o.promotable ? "**yes**" : "no", o.load, o.running_max);
      if (o.comparisons.empty()) std::printf("|   | %s: %s | | | | | |\n", id.c_str(), o.reason.c_str());
      std::fflush(stdout);
      if (report.is_open())
        report << json{{"kind", kind}, {"id", id}, {"decided", o.decided}, {"promotable", o.promotable},
                       {"reason", o.reason}, {"comparisons", o.comparisons}, {"load_avg_1m", o.load},
                       {"running_max", o.running_max}}.dump()
               << "\n";
    }
  }
  const double minutes = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() / 60;
  summary(all, "copy", {"n1M", "n16M"});
  summary(all, "honest", {"n1M", "n16M"});
  // The honest kernel must be a real win: at least 10 % faster on every bench workload, by the
  // median of its candidates' ratios (one comparison under load can read anything).
  double slowest_win = 1e9;
  for (const std::string w : {"n1M", "n16M"}) {
    std::vector<double> ratios;
    for (const auto& o : all)
      if (o.kind == "honest" && o.comparisons.contains(w)) ratios.push_back(o.comparisons.at(w).value("ratio", 0.0));
    if (!ratios.empty()) slowest_win = std::min(slowest_win, quantile(ratios, 0.5));
  }
  std::printf("\nthe honest kernel's median ratio on its slowest workload: %.2fx (%s 10 %% faster); %.1f minutes\n",
              slowest_win, slowest_win >= 1.10 ? "at least" : "NOT", minutes);
  if (spinner > 0) {
    ::kill(spinner, SIGKILL);
    ::waitpid(spinner, nullptr, 0);
  }
  d.stop();
  if (opt.keep) {
    std::printf("kept the workspace: %s\n", (root / "ws").c_str());
    return 0;
  }
  std::error_code ec;
  std::filesystem::remove_all(root, ec);
  return 0;
}
