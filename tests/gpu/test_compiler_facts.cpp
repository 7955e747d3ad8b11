// GPU tests (label `gpu`) of issue 19's feedback: every shipped CUDA kernel's verdict carries
// compiler facts for every config, the driver's view of each kernel agrees with NVRTC's ptxas
// report (registers, static shared memory, local memory), the driver's occupancy agrees with the
// calculator's (build/occupancy.cpp), and every timed bench workload has a roofline position.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "cuda_test_support.hpp"

namespace {

using namespace kwb::cudatest;

class ShippedCudaFacts : public ::testing::TestWithParam<Shipped> {};

TEST_P(ShippedCudaFacts, AgreeWithTheDriver) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device";
  const auto& k = GetParam();
  auto r = kwb_eval(k.source, "--op " + k.op + " --variant " + k.variant + " --time-budget-ms 100 --no-baseline");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  ASSERT_EQ(r.verdict["status"], "accepted") << r.verdict["reason"];
  const auto& facts = r.verdict["compiler_facts"];
  ASSERT_TRUE(facts.is_array());
  ASSERT_FALSE(facts.empty());
  for (const auto& c : facts) {
    ASSERT_FALSE(c["kernels"].empty()) << c["config"];
    EXPECT_EQ(c["ptx_sha256"].get<std::string>().size(), 64u);
    for (const auto& kf : c["kernels"]) {
      std::string where = c["config"].get<std::string>() + " " + kf["kernel"].get<std::string>();
      EXPECT_GT(kf["registers"].get<int>(), 0) << where;
      ASSERT_TRUE(kf["runner"].is_object()) << where << ": the runner's attributes are missing";
      const auto& drv = kf["runner"];
      EXPECT_EQ(drv["registers"], kf["registers"]) << where;
      EXPECT_EQ(drv["static_smem_bytes"], kf["static_smem_bytes"]) << where;
      EXPECT_EQ(drv["local_bytes"], kf["stack_frame_bytes"]) << where;
      EXPECT_EQ(drv["max_threads_per_block"], kf["max_threads_per_block"]) << where;
      ASSERT_FALSE(kf["occupancy"].empty()) << where;
      for (const auto& o : kf["occupancy"]) {
        // Every config runs every bench workload, so the driver answered for every shape.
        ASSERT_TRUE(o["runner_blocks_per_sm"].is_number()) << where << " at " << o["threads"];
        EXPECT_EQ(o["runner_blocks_per_sm"], o["blocks_per_sm"]) << where << " at " << o["threads"] << " threads";
      }
    }
  }
  int timed = 0;
  for (const auto& w : r.verdict["workloads"]) {
    if (w["kind"] != "bench" || !w["time"].is_object()) continue;
    ++timed;
    ASSERT_TRUE(w["feedback"].is_object()) << w["name"];
    const auto& roofs = w["feedback"]["roofline"];
    ASSERT_EQ(roofs.size(), 2u) << w["name"];  // calibrated and the H200's data sheet
    EXPECT_EQ(roofs[0]["peaks"], "calibrated");
    EXPECT_EQ(roofs[1]["peaks"], "data_sheet");
    for (const auto& p : roofs) {
      EXPECT_GT(p["pct_of_roof"].get<double>(), 0) << w["name"];
      EXPECT_NEAR(p["headroom_pct"].get<double>(), 100 - p["pct_of_roof"].get<double>(), 1e-6);
      EXPECT_TRUE(p["bound"] == "memory" || p["bound"] == "compute");
    }
  }
  EXPECT_GT(timed, 0);
  // KWB_TEST_VERDICTS=DIR keeps every verdict (the facts table of docs/benchmarks/h200.md).
  if (const char* dir = std::getenv("KWB_TEST_VERDICTS"); dir && *dir) {
    std::ofstream out(std::filesystem::path(dir) / (k.op + "_" + k.variant + "_facts.json"));
    out << r.verdict.dump(2) << "\n";
  }
}

std::string facts_name(const ::testing::TestParamInfo<Shipped>& info) {
  return test_name(info.param.op + "_" + info.param.variant + "_" +
                   std::filesystem::path(info.param.source).stem().string());
}

INSTANTIATE_TEST_SUITE_P(Kernels, ShippedCudaFacts, ::testing::ValuesIn(shipped_cuda_kernels()), facts_name);

}  // namespace
