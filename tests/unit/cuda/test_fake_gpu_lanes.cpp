// One timing lane per GPU (docs/architecture.md "Lanes"): `kwb serve` on the fake driver
// presenting 1, 2 or 8 GPUs of one model. Candidates submitted at once are each timed on exactly
// one GPU (the lane named by their "validating" event), never two launches at once on one GPU
// (the fake driver fails a launch that finds its GPU held by another process:
// fake_gpu_busy_<i>), at most --gpu-lane-depth candidates on a lane at once (the lanes' event
// intervals; depth 1: they never overlap; docs/architecture.md "Sharing a GPU"), on more than one
// GPU when there are several; a GPU that fails its warm-up is reported (log, /v1/devices,
// /v1/health) and gets no candidate.
#include <httplib.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "../../integration/daemon_support.hpp"
#include "fake_gpus.hpp"
#include "temp_dir.hpp"

namespace {

using namespace kwb::test;

nlohmann::json body_of(const httplib::Result& r) {
  return r ? nlohmann::json::parse(r->body, nullptr, false) : nlohmann::json();
}

// vector_add with the bench workloads shrunk to one a CPU emulates quickly (as test_fake_gpu.cpp).
void write_fake_specs(const std::filesystem::path& dir) {
  std::string spec = read_text(source_dir() / "specs/vector_add/spec.json");
  size_t b = spec.find("\"bench\": [");
  size_t e = spec.find("\n    ]", b);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  spec = spec.substr(0, b) + "\"bench\": [\n      {\"name\": \"n4k\", \"params\": {\"n\": 4096}, \"label\": \"small\"}" +
         spec.substr(e);
  std::filesystem::create_directories(dir / "vector_add");
  std::ofstream(dir / "vector_add/spec.json") << spec;
  std::filesystem::copy_file(source_dir() / "specs/vector_add/reference.cpp", dir / "vector_add/reference.cpp",
                             std::filesystem::copy_options::overwrite_existing);
}

std::string candidate(int i) {
  return "// kwb:launch vadd grid=(ceil_div(n, 256)) block=(256) args=(a, b, c, n)\n// candidate " +
         std::to_string(i) + "\nextern \"C\" __global__ void vadd(const float* a, const float* b, float* c, long long n) {}\n";
}

struct Timed {
  std::string id, lane, status, reason;
  int64_t start = 0, end = 0;  // event ids (one sequence for the whole daemon): validating, verdict
};

class FakeGpuLanes : public ::testing::Test {
 protected:
  void SetUp() override {
#ifndef KWB_TEST_FAKE_LIBCUDA
    GTEST_SKIP() << "no fake driver in this build (CUDA toolkit not found)";
#endif
  }

  // A daemon on `gpus` fake GPUs (those in fail_warmup failing their start-up).
  void start(int gpus, const std::string& fail_warmup = "", int depth = 2) {
#ifdef KWB_TEST_FAKE_LIBCUDA
    auto driver = FakeGpus::make(m_dir / "driver", gpus, fail_warmup);
    write_fake_specs(m_dir / "specs");
    ::setenv("KWB_CUDA_DRIVER", driver.c_str(), 1);
    ::setenv("KWB_LIBCLANG", "off", 1);
    std::string error;
    m_depth = depth;
    ASSERT_TRUE(m_daemon.start({"--no-auth", "--time-budget-ms", "20", "--decide-budget-ms", "100", "--specs-dir",
                                (m_dir / "specs").string(), "--kernels-dir", (source_dir() / "kernels").string(),
                                "--gpu-lane-depth", std::to_string(depth)},
                               m_dir / "ws", &error))
        << error;
#endif
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", m_daemon.port());
    c.set_read_timeout(120, 0);
    return c;
  }

  // Submits `n` candidates at once, waits for every verdict and reads where each was timed.
  std::vector<Timed> run(int n) {
    auto c = client();
    std::vector<std::string> ids;
    for (int i = 0; i < n; ++i) {
      auto r = c.Post("/v1/candidates",
                      nlohmann::json{{"op", "vector_add"}, {"backend", "cuda"}, {"source", candidate(i)}}.dump(),
                      "application/json");
      EXPECT_TRUE(r && r->status == 202) << (r ? r->body : "no reply");
      if (r && r->status == 202) ids.push_back(body_of(r)["id"]);
    }
    std::vector<Timed> out;
    for (const auto& id : ids) {
      Timed t;
      t.id = id;
      // The SSE stream replays every event and ends after the terminal state.
      std::string stream;
      auto ev = c.Get("/v1/candidates/" + id + "/events", [&](const char* data, size_t n) {
        stream.append(data, n);
        return true;
      });
      EXPECT_TRUE(ev) << "no event stream for " << id << ": " << httplib::to_string(ev.error());
      std::istringstream lines(stream);
      for (std::string line; std::getline(lines, line);) {
        if (!line.starts_with("data: ")) continue;
        auto e = nlohmann::json::parse(line.substr(6), nullptr, false);
        if (!e.is_object()) continue;
        const auto& d = e["data"];
        if (e["kind"] == "state" && d.value("state", "") == "validating") {
          t.lane = d.value("lane", "");
          t.start = e["id"].get<int64_t>();
        }
        if (e["kind"] == "verdict") {
          t.end = e["id"].get<int64_t>();
          t.status = d.value("status", "");
          t.reason = d.value("reason", "");
        }
      }
      out.push_back(t);
    }
    return out;
  }

  // Every candidate accepted on one lane of `allowed` (no launch found its GPU held by another
  // process); at most the lane depth of them on a lane at once. Returns the lanes used.
  std::set<std::string> check(const std::vector<Timed>& timed, const std::set<std::string>& allowed) {
    std::map<std::string, std::vector<const Timed*>> by_lane;
    for (const auto& t : timed) {
      EXPECT_EQ(t.status, "accepted") << t.id << ": " << t.reason << "\n" << m_daemon.log();
      EXPECT_TRUE(allowed.contains(t.lane)) << t.id << " was timed on '" << t.lane << "'";
      EXPECT_GT(t.end, t.start) << t.id;
      by_lane[t.lane].push_back(&t);
    }
    std::set<std::string> used;
    for (auto& [lane, list] : by_lane) {
      used.insert(lane);
      // Interval ends and starts in event order: the most open at once.
      std::vector<std::pair<int64_t, int>> marks;
      for (const auto* t : list) marks.insert(marks.end(), {{t->start, +1}, {t->end, -1}});
      std::sort(marks.begin(), marks.end());
      int open = 0, most = 0;
      for (const auto& [at, step] : marks) most = std::max(most, open += step);
      EXPECT_LE(most, m_depth) << lane << ": " << most << " candidates on it at once (depth " << m_depth << ")";
      m_most_at_once = std::max(m_most_at_once, most);
    }
    return used;
  }
  int m_depth = 2, m_most_at_once = 0;

  TempDir m_dir;
  DaemonProcess m_daemon;
};

std::set<std::string> lanes_of(int gpus, int skip = -1) {
  std::set<std::string> out;
  for (int i = 0; i < gpus; ++i)
    if (i != skip) out.insert("cuda:" + FakeGpus::bus_id(i));
  return out;
}

class FakeGpuLanesN : public FakeGpuLanes, public ::testing::WithParamInterface<int> {};

TEST_P(FakeGpuLanesN, EachCandidateIsTimedOnOneGpuAndNoGpuTimesTwoAtOnce) {
  const int gpus = GetParam();
  start(gpus);
  if (HasFatalFailure()) return;
  auto c = client();
  auto devices = body_of(c.Get("/v1/devices"));
  ASSERT_TRUE(devices["gpus"].is_array()) << devices.dump();
  ASSERT_EQ(devices["gpus"].size(), size_t(gpus)) << devices.dump();
  for (const auto& g : devices["gpus"]) {
    EXPECT_EQ(g["status"], "ready") << g.dump();
    EXPECT_EQ(g["device_id"], devices["gpus"][0]["device_id"]) << "one model, one calibration";
    EXPECT_EQ(g["device_class"], g["device_id"]) << "the deprecated name, kept for older clients";
  }
  auto health = body_of(c.Get("/v1/health"));
  EXPECT_EQ(health["status"], "ok") << health.dump();
  EXPECT_EQ(health["gpus"]["lanes"], gpus) << health.dump();

  auto timed = run(std::max(3, 2 * gpus));
  auto used = check(timed, lanes_of(gpus));
  std::printf("at most %d candidate(s) on one lane at once\n", m_most_at_once);
  if (gpus > 1) EXPECT_GT(used.size(), 1u) << "every candidate ran on one GPU of " << gpus;
  // The lanes' counts add up to the candidates (incumbents and baselines run inside their lane).
  // A lane counts a candidate once its runner is stopped, just after the verdict: wait for it.
  int64_t finished = 0;
  for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
       finished != int64_t(timed.size()) && std::chrono::steady_clock::now() < until;) {
    devices = body_of(c.Get("/v1/devices"));
    finished = 0;
    for (const auto& g : devices["gpus"]) finished += g["finished"].get<int64_t>();
    if (finished != int64_t(timed.size())) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(finished, int64_t(timed.size())) << devices.dump();
  // Tuning records and the leaderboard are per class: one device name for every GPU's verdicts.
  std::set<std::string> named;
  for (const auto& t : timed) named.insert(body_of(c.Get("/v1/candidates/" + t.id))["verdict"]["device"]);
  EXPECT_EQ(named.size(), 1u);
}

TEST_F(FakeGpuLanes, ALaneOfDepthOneTimesOneCandidateAtATime) {
  start(1, "", /*depth=*/1);
  if (HasFatalFailure()) return;
  check(run(4), lanes_of(1));
  EXPECT_EQ(m_most_at_once, 1);
}

INSTANTIATE_TEST_SUITE_P(Gpus, FakeGpuLanesN, ::testing::Values(1, 2, 8),
                         [](const auto& info) { return std::to_string(info.param) + "gpus"; });

TEST_F(FakeGpuLanes, AGpuThatFailsItsWarmUpIsReportedAndSkipped) {
  start(3, "1");
  if (HasFatalFailure()) return;
  auto c = client();
  const std::string bad = "cuda:" + FakeGpus::bus_id(1);
  auto devices = body_of(c.Get("/v1/devices"));
  ASSERT_EQ(devices["gpus"].size(), 3u) << devices.dump();
  for (const auto& g : devices["gpus"]) {
    const bool is_bad = g["lane"] == bad;
    EXPECT_EQ(g["status"], is_bad ? "unusable" : "ready") << g.dump();
    if (is_bad) EXPECT_NE(g["reason"].get<std::string>().find("CUDA_ERROR_ECC_UNCORRECTABLE"), std::string::npos) << g.dump();
  }
  auto health = body_of(c.Get("/v1/health"));
  EXPECT_EQ(health["status"], "degraded") << health.dump();
  EXPECT_EQ(health["gpus"]["lanes"], 2) << health.dump();
  ASSERT_EQ(health["gpus"]["unusable"].size(), 1u) << health.dump();
  EXPECT_EQ(health["gpus"]["unusable"][0]["lane"], bad);
  EXPECT_NE(m_daemon.log().find("taken out of rotation"), std::string::npos) << m_daemon.log();

  auto used = check(run(4), lanes_of(3, /*skip=*/1));
  EXPECT_FALSE(used.contains(bad));
}

}  // namespace
