// vs_baseline: the baseline (a launcher, evaluated through the measure function) against an
// accepted cuda verdict, with the two clocks made comparable.
#include <gtest/gtest.h>

#include <chrono>

#include "app/baseline_judge.hpp"

namespace {

using namespace kwb;

const spec::Catalog& catalog() {
  static auto c = spec::Catalog::load(std::filesystem::path(KWB_TEST_SOURCE_DIR) / "specs");
  return *c;
}

core::TimeStats stats(const std::string& clock, double median_ns, double overhead_ns) {
  core::TimeStats t;
  t.clock = clock;
  t.median_ns = median_ns;
  t.launch_overhead_ns = overhead_ns;
  t.samples = 50;
  return t;
}

core::Verdict verdict(const std::string& clock, double median_ns, double overhead_ns) {
  core::Verdict v;
  v.op = "row_sum";
  v.variant = "f32";
  v.backend = "cuda";
  v.status = core::Status::accepted;
  v.device = "Test GPU";
  core::WorkloadResult w;
  w.name = "4096x4096";
  w.kind = "bench";
  w.time = stats(clock, median_ns, overhead_ns);
  v.workloads.push_back(w);
  return v;
}

app::BaselineMeasureFn baseline_timed(const std::string& clock, double median_ns, double overhead_ns, int* calls) {
  return [=](const core::Candidate& kernel, const std::vector<std::string>& bench) {
    ++*calls;
    EXPECT_EQ(kernel.backend, "cuda-launcher");
    EXPECT_EQ(bench, std::vector<std::string>{"4096x4096"});
    return verdict(clock, median_ns, overhead_ns);
  };
}

TEST(BaselineJudge, SameClocksCompareMediansAsTheyAre) {
  ASSERT_NE(catalog().find("row_sum"), nullptr);
  app::BaselineJudge judge(catalog());
  int calls = 0;
  auto v = verdict("cuda_event", 10000, 2800);
  judge.judge(v, baseline_timed("cuda_event", 15000, 2800, &calls));
  ASSERT_TRUE(v.workloads[0].vs_baseline.has_value());
  EXPECT_DOUBLE_EQ(*v.workloads[0].vs_baseline, 1.5);
  EXPECT_EQ(v.reason.find("launch latency"), std::string::npos) << v.reason;
  // The baseline's times are kept: a second verdict does not evaluate it again.
  auto again = verdict("cuda_event", 30000, 2800);
  judge.judge(again, baseline_timed("cuda_event", 1, 1, &calls));
  EXPECT_EQ(calls, 1);
  EXPECT_DOUBLE_EQ(*again.workloads[0].vs_baseline, 0.5);
}

// The baseline's timing is part of the verdict's wall time (summary.wall_ms: analysis to verdict).
TEST(BaselineJudge, ItsTimeIsStageBaselineAndPartOfWallMs) {
  app::BaselineJudge judge(catalog());
  int calls = 0;
  auto v = verdict("cuda_event", 10000, 2800);
  v.summary.wall_ms = 100;
  auto timed = baseline_timed("cuda_event", 15000, 2800, &calls);
  judge.judge(v, [&](const core::Candidate& k, const std::vector<std::string>& bench) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
    while (std::chrono::steady_clock::now() < until) {}  // the baseline's evaluation takes 20 ms
    return timed(k, bench);
  });
  ASSERT_TRUE(v.summary.stage_ms.contains("baseline"));
  EXPECT_GE(v.summary.stage_ms.at("baseline"), 20.0);
  EXPECT_DOUBLE_EQ(v.summary.wall_ms, 100 + v.summary.stage_ms.at("baseline"));
}

TEST(BaselineJudge, AnEventTimedBaselineLosesItsLaunchLatencyAgainstACuptiTimedCandidate) {
  app::BaselineJudge judge(catalog());
  int calls = 0;
  // Candidate: CUPTI reads 640 ns for an empty kernel; baseline: events read 2800 ns.
  auto v = verdict("cupti_kernel", 10000, 640);
  judge.judge(v, baseline_timed("cuda_event", 12160, 2800, &calls));
  ASSERT_TRUE(v.workloads[0].vs_baseline.has_value());
  EXPECT_NEAR(*v.workloads[0].vs_baseline, 1.0, 1e-9);  // (12160 - 2160) / 10000
  EXPECT_NE(v.reason.find("less their launch latency of 2.2 us"), std::string::npos) << v.reason;
}

TEST(BaselineJudge, ARejectedBaselineGivesNoRatioAndSaysWhy) {
  app::BaselineJudge judge(catalog());
  auto v = verdict("cupti_kernel", 10000, 640);
  judge.judge(v, [](const core::Candidate&, const std::vector<std::string>&) {
    core::Verdict b;
    b.status = core::Status::rejected;
    b.reason = "work left on another stream";
    return b;
  });
  EXPECT_FALSE(v.workloads[0].vs_baseline.has_value());
  EXPECT_NE(v.reason.find("no vs_baseline: the cub baseline (baseline_cub.cu) was rejected: work left"),
            std::string::npos)
      << v.reason;
}

}  // namespace
