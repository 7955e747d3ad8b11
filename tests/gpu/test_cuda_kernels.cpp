// GPU tests (ctest label `gpu`): every shipped CUDA kernel is accepted, and every case of the
// CUDA corpus (tests/security/cuda) gets the verdict its first line declares. Each test skips
// itself when no CUDA device is present.
#include <gtest/gtest.h>

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
    EXPECT_EQ(w["time"]["clock"], "cuda_event");
    EXPECT_GT(w["time"]["median_ns"].get<double>(), 0);
    ASSERT_TRUE(w["roofline"].is_object());
    if (w["roofline"]["pct_bw"].is_number()) {
      EXPECT_LT(w["roofline"]["pct_bw"].get<double>(), 110.0) << w["name"];
    }
    timed = true;
  }
  EXPECT_TRUE(timed) << "no bench workload was timed";
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
