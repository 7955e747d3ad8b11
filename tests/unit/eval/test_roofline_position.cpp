// Roofline positions (eval/roofline_position.cpp): intensity, binding roof, share and headroom;
// a workload's roofline from the spec's expressions.
#include <gtest/gtest.h>

#include "eval/roofline_position.hpp"

namespace kwb::eval {
namespace {

TEST(RooflinePosition, MemoryBoundBelowTheRidge) {
  core::RooflineResult r;
  r.bytes = 8e9;  // 8 GB and 1 Gflop in 4 ms, against 4 TB/s and 60 Tflop/s: ridge 15 flop/B
  r.flops = 1e9;
  auto f = roofline_feedback("BLOCK=256", r, 4e6, {{"data_sheet", 4e12, 60e12}});
  EXPECT_EQ(f.config, "BLOCK=256");
  ASSERT_TRUE(f.intensity);
  EXPECT_DOUBLE_EQ(*f.intensity, 0.125);
  ASSERT_EQ(f.roofline.size(), 1u);
  const auto& p = f.roofline[0];
  EXPECT_EQ(p.bound, "memory");
  EXPECT_DOUBLE_EQ(*p.ridge_intensity, 15.0);
  EXPECT_NEAR(p.pct_of_roof, 50.0, 1e-9);  // the memory roof's 2 ms of 4 ms
  EXPECT_NEAR(p.headroom_pct, 50.0, 1e-9);
}

TEST(RooflinePosition, ComputeBoundAboveTheRidge) {
  core::RooflineResult r;
  r.bytes = 1e8;
  r.flops = 6e12;  // 60000 flop/B: the compute roof's 100 ms against 110 ms measured
  auto f = roofline_feedback("default", r, 110e6, {{"calibrated", 4e12, 60e12}, {"data_sheet", 0, 0}});
  ASSERT_EQ(f.roofline.size(), 1u);  // no bandwidth: no position against those peaks
  EXPECT_EQ(f.roofline[0].bound, "compute");
  EXPECT_NEAR(f.roofline[0].pct_of_roof, 100.0 / 1.1, 1e-9);
}

TEST(RooflinePosition, WithoutAComputeRoofAndFasterThanTheRoof) {
  core::RooflineResult r;
  r.bytes = 1e6;
  r.flops = 1e9;  // would be compute-bound, but there is no compute roof to bind (cpu calibration)
  auto f = roofline_feedback("default", r, 100, {{"calibrated", 10e9, 0}});  // 1 MB in 100 ns: from a cache
  ASSERT_EQ(f.roofline.size(), 1u);
  EXPECT_EQ(f.roofline[0].bound, "memory");
  EXPECT_FALSE(f.roofline[0].flops_per_s);
  EXPECT_FALSE(f.roofline[0].ridge_intensity);
  EXPECT_GT(f.roofline[0].pct_of_roof, 100.0);
  EXPECT_LT(f.roofline[0].headroom_pct, 0.0);
  core::RooflineResult none;
  EXPECT_FALSE(roofline_feedback("default", none, 100, {{"calibrated", 1e9, 0}}).intensity);
  EXPECT_TRUE(roofline_feedback("default", r, 0, {{"calibrated", 1e9, 0}}).roofline.empty());
}

TEST(RooflinePosition, WorkloadRooflineFromTheSpecsExpressions) {
  core::Variant v;
  v.roofline = {"rows * cols * 8", "rows * cols * 3"};
  core::Workload w;
  w.params = {{"rows", 1000}, {"cols", 500}};
  auto r = workload_roofline(v, w, 2e6, 1e9);  // 4 MB in 2 ms: 2 GB/s of a 1 GB/s calibration
  EXPECT_DOUBLE_EQ(r.bytes, 4e6);
  EXPECT_DOUBLE_EQ(r.flops, 1.5e6);
  ASSERT_TRUE(r.pct_bw);
  EXPECT_NEAR(*r.pct_bw, 200.0, 1e-9);
  EXPECT_FALSE(workload_roofline(v, w, 0, 1e9).pct_bw);  // no median, no share
  EXPECT_FALSE(workload_roofline(v, w, 2e6, 0).pct_bw);  // no calibration, no share
}

}  // namespace
}  // namespace kwb::eval
