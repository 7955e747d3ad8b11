#pragma once
// The Slurm executor tests' rig (test_slurm_executor.cpp, test_slurm_latency.cpp): a real Slurm
// on localhost (slurm_cluster.hpp) and a daemon that sends its candidates there, with the calls
// the tests make of both.
#include <httplib.h>
#include <signal.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "daemon_support.hpp"
#include "light_bench_specs.hpp"
#include "slurm_cluster.hpp"

namespace kwb::test {

inline constexpr const char* k_honest =
    "#include <cstdint>\nextern \"C\" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) "
    "{ for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i]; }\n";
inline constexpr const char* k_wrong =
    "#include <cstdint>\nextern \"C\" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) "
    "{ for (int64_t i = 0; i < n; ++i) c[i] = a[i] - b[i]; }\n";

class SlurmExecutor : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = SlurmCluster::missing(); !why.empty()) GTEST_SKIP() << "no Slurm here: " << why;
    std::string error;
    ASSERT_TRUE(m_cluster.start(&error)) << error;
    char tmpl[] = "/tmp/kwb-slurm-test-XXXXXX";
    ASSERT_TRUE(::mkdtemp(tmpl));
    m_root = tmpl;
    m_specs = light_vector_add_specs(m_root);
  }
  void TearDown() override {
    m_daemon.stop();
    m_cluster.stop();
    std::error_code ec;
    if (!m_root.empty() && !std::getenv("KWB_KEEP_TEST_ROOT")) std::filesystem::remove_all(m_root, ec);
  }

  std::vector<std::string> args(const std::string& budget_ms, bool slurm = true) const {
    std::vector<std::string> a = {"--no-auth", "--time-budget-ms", budget_ms, "--specs-dir", m_specs.string()};
    // The worker's node-local folder: one per build tree, so the node is calibrated once.
    if (slurm)
      a.insert(a.end(), {"--executor", "slurm", "--slurm-poll-ms", "100", "--worker-dir",
                         (bin_dir().parent_path() / "slurm-worker").string()});
    return a;
  }
  void start_daemon(const std::string& budget_ms, bool slurm = true) {
    std::string error;
    ASSERT_TRUE(m_daemon.start(args(budget_ms, slurm), m_root / (slurm ? "ws" : "ws-local"), &error)) << error;
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", m_daemon.port());
    c.set_read_timeout(120, 0);
    return c;
  }
  std::string submit(const std::string& source) {
    auto r = client().Post("/v1/candidates", nlohmann::json{{"op", "vector_add"}, {"source", source}}.dump(),
                           "application/json");
    if (!r || r->status != 202) return "";
    return nlohmann::json::parse(r->body)["id"];
  }
  nlohmann::json get(const std::string& path) const {
    auto r = client().Get(path);
    return r ? nlohmann::json::parse(r->body, nullptr, false) : nlohmann::json();
  }
  // The candidate once terminal (bounded: `limit_s`).
  nlohmann::json finished(const std::string& id, int limit_s = 300) const {
    nlohmann::json got;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(limit_s);
    do {
      got = get("/v1/candidates/" + id + "?wait=30");
      if (got.is_object() && (got["state"] == "done" || got["state"] == "cancelled")) return got;
    } while (std::chrono::steady_clock::now() < deadline);
    return got;
  }
  std::vector<nlohmann::json> events(const std::string& id, const std::string& kind) const {
    std::vector<nlohmann::json> out;
    auto e = get("/v1/candidates/" + id + "/events?wait=0");
    for (const auto& ev : e["events"])
      if (ev["kind"] == kind) out.push_back(ev);
    return out;
  }
  // Stage events saying the candidate was submitted to Slurm, one per job.
  std::set<std::string> slurm_jobs_of(const std::string& id) const {
    std::set<std::string> jobs;
    const std::string marker = "submitted as Slurm job ";
    for (const auto& ev : events(id, "stage")) {
      std::string detail = ev["data"].value("detail", "");
      if (auto at = detail.find(marker); at != std::string::npos) {
        std::string rest = detail.substr(at + marker.size());
        jobs.insert(rest.substr(0, rest.find(' ')));
      }
    }
    return jobs;
  }
  bool in_squeue(const std::string& id) const {
    for (const auto& line : m_cluster.squeue(""))
      if (line.ends_with("|kwb-" + id)) return true;
    return false;
  }
  // The pid of the `kwb worker` of candidate `id` once the candidate is in its benchmark stage
  // (bounded wait), 0 if it never got there.
  pid_t worker_in_benchmark(const std::string& id) const {
    pid_t worker = 0;
    SlurmCluster::wait_for(
        [&] {
          if (get("/v1/candidates/" + id)["state"] != "benchmarking") return false;
          worker = worker_of(id);
          return worker > 0;
        },
        std::chrono::seconds(240));
    return worker;
  }
  // The pid of the `kwb worker` evaluating candidate `id`, 0 if none runs.
  static pid_t worker_of(const std::string& id) {
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
      const std::string name = entry.path().filename();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::string cmd = read_text(entry.path() / "cmdline");
      std::replace(cmd.begin(), cmd.end(), '\0', ' ');
      if (cmd.find(" worker --job ") != std::string::npos && cmd.find("/" + id) != std::string::npos)
        return pid_t(std::stol(name));
    }
    return 0;
  }

  SlurmCluster m_cluster;
  DaemonProcess m_daemon;
  std::filesystem::path m_root, m_specs;
};

inline std::set<std::string> keys_of(const nlohmann::json& j) {
  std::set<std::string> out;
  if (j.is_object())
    for (const auto& [k, v] : j.items()) out.insert(k);
  return out;
}

}  // namespace kwb::test
