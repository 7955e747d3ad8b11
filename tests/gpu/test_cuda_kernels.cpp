// GPU tests (ctest label `gpu`): every shipped CUDA kernel is accepted, and every case of the
// CUDA corpus (tests/security/cuda) gets the verdict its first line declares. Each test skips
// itself when no CUDA device is present.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "cuda_test_support.hpp"

namespace {

using namespace kwb::cudatest;

class ShippedCudaKernel : public ::testing::TestWithParam<Shipped> {};

TEST_P(ShippedCudaKernel, IsAccepted) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device";
  const auto& k = GetParam();
  auto r = kwb_eval(k.source, "--op " + k.op + " --variant " + k.variant + " --time-budget-ms 200");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "accepted") << r.verdict["reason"];
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.verdict["backend"], "cuda");
  bool timed = false;
  for (const auto& w : r.verdict["workloads"]) {
    EXPECT_TRUE(w["correct"].get<bool>()) << w["name"];
    if (w["kind"] != "bench") continue;
    ASSERT_TRUE(w["time"].is_object()) << w["name"];
    // The default clock: CUPTI's timestamps of every sample (the H200 machine has libcupti).
    EXPECT_EQ(w["time"]["clock"], "cupti_kernel") << w["name"];
    EXPECT_GT(w["time"]["median_ns"].get<double>(), 0);
    ASSERT_TRUE(w["roofline"].is_object());
    if (w["roofline"]["pct_bw"].is_number()) {
      EXPECT_LT(w["roofline"]["pct_bw"].get<double>(), 110.0) << w["name"];
    }
    timed = true;
  }
  EXPECT_TRUE(timed) << "no bench workload was timed";
  // Ops whose spec names a vendor baseline (cuBLAS, CUB) get vs_baseline on every timed workload:
  // the baseline itself was accepted on the same checks, then timed in its own runner.
  auto spec = nlohmann::json::parse(read_text(source_dir() / "specs" / k.op / "spec.json"), nullptr, false, /*ignore_comments=*/true);
  ASSERT_TRUE(spec.is_object()) << k.op << ": spec.json does not parse";
  if (spec.is_object() && spec.contains("baselines")) {
    EXPECT_TRUE(r.verdict["summary"]["geomean_vs_baseline"].is_number()) << r.verdict["reason"];
    for (const auto& w : r.verdict["workloads"])
      if (w["kind"] == "bench") EXPECT_TRUE(w["vs_baseline"].is_number()) << w["name"] << ": " << r.verdict["reason"];
  }
  // KWB_TEST_VERDICTS=DIR keeps every verdict (the per-spec tables of docs/benchmarks/h200.md).
  if (const char* dir = std::getenv("KWB_TEST_VERDICTS"); dir && *dir) {
    std::ofstream out(std::filesystem::path(dir) / (k.op + "_" + k.variant + ".json"));
    out << r.verdict.dump(2) << "\n";
  }
}

std::string shipped_name(const ::testing::TestParamInfo<Shipped>& info) {
  return test_name(info.param.op + "_" + info.param.variant + "_" +
                   std::filesystem::path(info.param.source).stem().string());
}

INSTANTIATE_TEST_SUITE_P(Kernels, ShippedCudaKernel, ::testing::ValuesIn(shipped_cuda_kernels()), shipped_name);

class CudaCorpus : public ::testing::TestWithParam<Case> {};

TEST_P(CudaCorpus, GetsTheRightVerdict) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device";
  const auto& c = GetParam();
  ASSERT_FALSE(c.op.empty()) << c.file << ": no kwb-expect line";
  auto r = kwb_eval(c.file, "--op " + c.op + " --time-budget-ms 50 " + c.args);
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], c.status) << r.verdict["reason"];
  EXPECT_EQ(r.exit_code, c.status == "accepted" ? 0 : 1);
  std::string reason = r.verdict["reason"];
  EXPECT_NE(reason.find(c.reason), std::string::npos) << "reason: " << reason;
  if (!c.diagnostic.empty()) {
    bool found = false;
    for (const auto& d : r.verdict["diagnostics"]) {
      std::string loc = d["file"].get<std::string>() + ":" + std::to_string(d["line"].get<int>()) + ":";
      if (loc.find(c.diagnostic) != std::string::npos && d["col"].get<int>() > 0) found = true;
    }
    EXPECT_TRUE(found) << r.verdict["diagnostics"].dump();
  }
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return test_name(std::filesystem::path(info.param.file).stem().string());
}

INSTANTIATE_TEST_SUITE_P(Security, CudaCorpus, ::testing::ValuesIn(corpus(source_dir() / "tests/security/cuda", ".cu")),
                         case_name);

}  // namespace
