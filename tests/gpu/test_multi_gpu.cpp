// One timing lane per GPU on a real multi-GPU host (docs/architecture.md "Lanes"; the figures go
// to docs/benchmarks/h200.md "Several GPUs"). Skips itself with fewer than 2 GPUs.
//  - 60 small one-config candidates submitted at once: the wall time from the first submission to
//    the last verdict on 1 GPU (--gpus 0), on 2 (--gpus 0,1) and on every GPU; k GPUs should be
//    close to k times faster (asserted: at least 0.8 k);
//  - the shipped vector_add kernel timed on each GPU (n16M, DRAM bound): the per-GPU medians
//    agree within 1 %.
#include <dlfcn.h>
#include <httplib.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <sstream>

#include "../integration/daemon_support.hpp"

namespace {

using namespace kwb::test;

int gpu_count() {
  void* lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return 0;
  auto init = reinterpret_cast<int (*)(unsigned)>(::dlsym(lib, "cuInit"));
  auto count = reinterpret_cast<int (*)(int*)>(::dlsym(lib, "cuDeviceGetCount"));
  int n = 0;
  return init && count && init(0) == 0 && count(&n) == 0 ? n : 0;
}

nlohmann::json body_of(const httplib::Result& r) {
  return r ? nlohmann::json::parse(r->body, nullptr, false) : nlohmann::json();
}

struct Finished {
  std::string lane;
  nlohmann::json verdict;
};

// Submits every body at once and waits for all verdicts; returns them with the lane each ran on.
std::vector<Finished> submit_all(const DaemonProcess& d, const std::vector<nlohmann::json>& bodies) {
  httplib::Client c("127.0.0.1", d.port());
  c.set_read_timeout(600, 0);
  std::vector<std::string> ids;
  for (const auto& b : bodies) {
    auto r = c.Post("/v1/candidates", b.dump(), "application/json");
    EXPECT_TRUE(r && r->status == 202) << (r ? r->body : "no reply");
    if (r && r->status == 202) ids.push_back(body_of(r)["id"]);
  }
  std::vector<Finished> out;
  for (const auto& id : ids) {
    Finished f;
    // The SSE stream replays every event and ends after the terminal state.
    std::string stream;
    c.Get("/v1/candidates/" + id + "/events", [&](const char* data, size_t n) {
      stream.append(data, n);
      return true;
    });
    std::istringstream lines(stream);
    for (std::string line; std::getline(lines, line);) {
      if (!line.starts_with("data: ")) continue;
      auto e = nlohmann::json::parse(line.substr(6), nullptr, false);
      if (e.is_object() && e["kind"] == "state" && e["data"].value("state", "") == "validating")
        f.lane = e["data"].value("lane", "");
    }
    f.verdict = body_of(c.Get("/v1/candidates/" + id))["verdict"];
    out.push_back(f);
  }
  return out;
}

std::vector<std::string> start_args(const std::string& gpus) {
  return {"--no-auth", "--gpus", gpus, "--specs-dir", (source_dir() / "specs").string()};
}

class MultiGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    m_gpus = gpu_count();
    if (m_gpus < 2) GTEST_SKIP() << "needs at least 2 GPUs (found " << m_gpus << ")";
  }
  int m_gpus = 0;
};

TEST_F(MultiGpu, SixtySmallCandidatesFinishKTimesFasterOnKGpus) {
  std::vector<nlohmann::json> bodies;
  for (int i = 0; i < 60; ++i)
    bodies.push_back({{"op", "vector_add"}, {"backend", "cuda"}, {"bench", {"n16M"}},
                      {"source", "// kwb:launch vadd grid=(ceil_div(n, 256)) block=(256) args=(a, b, c, n)\n// " +
                                     std::to_string(i) +
                                     "\nextern \"C\" __global__ void vadd(const float* a, const float* b, float* c, "
                                     "long long n) { long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; "
                                     "if (i < n) c[i] = a[i] + b[i]; }\n"}});
  std::map<int, double> seconds;
  std::vector<std::pair<int, std::string>> runs = {{1, "0"}, {2, "0,1"}};
  if (m_gpus > 2) runs.push_back({m_gpus, "all"});
  for (const auto& [k, gpus] : runs) {
    DaemonProcess d;
    std::string error;
    ASSERT_TRUE(d.start(start_args(gpus), {}, &error, std::chrono::seconds(600))) << error;
    // A warm daemon: one candidate first (NVRTC workers, reference builds), not counted.
    submit_all(d, {bodies.front()});
    auto t0 = std::chrono::steady_clock::now();
    auto done = submit_all(d, bodies);
    seconds[k] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::set<std::string> lanes;
    for (const auto& f : done) {
      EXPECT_EQ(f.verdict.value("status", ""), "accepted") << f.verdict.value("reason", "");
      lanes.insert(f.lane);
    }
    EXPECT_EQ(int(lanes.size()), k) << "candidates ran on " << lanes.size() << " of " << k << " GPUs";
    std::printf("[ multi-gpu ] 60 candidates on %d GPU(s): %.1f s\n", k, seconds[k]);
    RecordProperty("seconds_on_" + std::to_string(k) + "_gpus", std::to_string(seconds[k]));
  }
  for (const auto& [k, s] : seconds) {
    if (k == 1) continue;
    const double ratio = seconds[1] / s;
    std::printf("[ multi-gpu ] speed-up on %d GPUs: %.2f x\n", k, ratio);
    RecordProperty("speedup_" + std::to_string(k), std::to_string(ratio));
    EXPECT_GE(ratio, 0.8 * k) << k << " GPUs: " << s << " s against " << seconds[1] << " s on one";
  }
}

TEST_F(MultiGpu, AShippedKernelTimesTheSameOnEveryGpu) {
  DaemonProcess d;
  std::string error;
  ASSERT_TRUE(d.start(start_args("all"), {}, &error, std::chrono::seconds(600))) << error;
  const std::string source = read_text(source_dir() / "kernels/vector_add/cuda/vectorized.cu");
  std::vector<nlohmann::json> bodies;
  for (int i = 0; i < 4 * m_gpus; ++i)
    bodies.push_back({{"op", "vector_add"}, {"backend", "cuda"}, {"bench", {"n16M"}},
                      {"source", source + "// copy " + std::to_string(i) + "\n"}});
  std::map<std::string, std::vector<double>> medians;  // lane -> n16M medians
  for (const auto& f : submit_all(d, bodies)) {
    ASSERT_EQ(f.verdict.value("status", ""), "accepted") << f.verdict.value("reason", "");
    for (const auto& w : f.verdict["workloads"])
      if (w["name"] == "n16M") medians[f.lane].push_back(w["time"]["median_ns"].get<double>());
  }
  EXPECT_EQ(int(medians.size()), m_gpus) << "some GPU timed none of the copies";
  double lo = 1e300, hi = 0;
  for (auto& [lane, list] : medians) {
    std::sort(list.begin(), list.end());
    const double m = list[list.size() / 2];
    std::printf("[ multi-gpu ] %s: n16M median %.1f us over %zu copies\n", lane.c_str(), m / 1e3, list.size());
    lo = std::min(lo, m), hi = std::max(hi, m);
  }
  const double spread_pct = (hi / lo - 1) * 100;
  std::printf("[ multi-gpu ] spread across GPUs: %.2f %%\n", spread_pct);
  RecordProperty("spread_pct", std::to_string(spread_pct));
  EXPECT_LT(spread_pct, 1.0);
}

}  // namespace
