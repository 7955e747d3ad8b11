// core/resource_diff.hpp: the candidate's resources beside the incumbent's, from hand-made
// compiler facts (docs/verdict.md "Resources").
#include <gtest/gtest.h>

#include "core/resource_diff.hpp"
#include "core/verdict_comparison.hpp"
#include "core/verdict_parse.hpp"

namespace {

using namespace kwb::core;

KernelFacts kernel(const std::string& name, int regs, int64_t smem, int blocks, const std::string& limiter,
                   const std::vector<std::string>& workloads = {"n1M", "n16M"}, int64_t threads = 256) {
  KernelFacts k;
  k.kernel = name;
  k.registers = regs;
  k.static_smem_bytes = smem;
  Occupancy o;
  o.threads = threads;
  o.dynamic_smem_bytes = 0;
  o.blocks_per_sm = blocks;
  o.warps_per_sm = int(blocks * threads / 32);
  o.pct = 100.0 * o.warps_per_sm / 64;
  o.limited_by = limiter;
  o.workloads = workloads;
  k.occupancy.push_back(o);
  return k;
}

ConfigFacts config(const std::string& label, std::vector<KernelFacts> kernels) {
  ConfigFacts c;
  c.config = label;
  c.arch = "sm_90a";
  c.kernels = std::move(kernels);
  return c;
}

TEST(ResourceDiff, OccupancyCutByRegistersIsALossNamingTheLimiterWithBothSidesFigures) {
  std::vector<ConfigFacts> inc{config("BLOCK=128", {kernel("k", 72, 0, 16, "warps", {"n1M", "n16M"}, 128)})};
  std::vector<ConfigFacts> cand{config("BLOCK=128", {kernel("k", 96, 0, 12, "registers", {"n1M", "n16M"}, 128)})};
  auto d = resource_diff(cand, {}, inc, {}, {"n1M", "n16M"});
  ASSERT_EQ(d.rows.size(), 2u);
  EXPECT_EQ(d.rows[0].workload, "n1M");
  ASSERT_TRUE(d.rows[0].candidate && d.rows[0].incumbent);
  EXPECT_EQ(d.rows[0].candidate->registers, 96);
  EXPECT_EQ(d.rows[0].incumbent->registers, 72);
  ASSERT_EQ(d.rows[0].losses.size(), 1u);
  EXPECT_EQ(d.rows[0].losses[0], "occupancy 16 → 12 blocks/SM, 64 → 48 warps (100% → 75%; limiter: registers, 72 → 96 "
                                 "per thread)");
  ASSERT_EQ(d.losses.size(), 1u) << "one loss, its workloads named once";
  EXPECT_EQ(d.losses[0], "k: " + d.rows[0].losses[0] + " on n1M, n16M");
}

TEST(ResourceDiff, SpillsUpAndSharedMemoryLimitAreLossesAndMoreRegistersWithinAStepAreNot) {
  auto spilling = kernel("k", 255, 0, 8, "warps");
  spilling.spill_store_bytes = 64;
  spilling.spill_load_bytes = 64;
  auto d = resource_diff({config("default", {spilling})}, {}, {config("default", {kernel("k", 32, 0, 8, "warps")})}, {},
                         {"n1M"});
  ASSERT_EQ(d.rows.size(), 1u);
  ASSERT_EQ(d.rows[0].losses.size(), 1u) << "same warps per SM: only the spills";
  EXPECT_EQ(d.rows[0].losses[0], "spills 0 → 128 B per thread (stores 0 → 64 B, loads 0 → 64 B)");

  auto smem = resource_diff({config("default", {kernel("k", 32, 49152, 4, "shared_memory")})}, {},
                            {config("default", {kernel("k", 32, 0, 8, "warps")})}, {}, {"n1M"});
  ASSERT_EQ(smem.losses.size(), 1u);
  EXPECT_NE(smem.losses[0].find("occupancy 8 → 4 blocks/SM"), std::string::npos) << smem.losses[0];
  EXPECT_NE(smem.losses[0].find("limiter: shared memory, 0 → 49152 B per block"), std::string::npos) << smem.losses[0];

  auto within = resource_diff({config("default", {kernel("k", 40, 0, 8, "warps")})}, {},
                              {config("default", {kernel("k", 32, 0, 8, "warps")})}, {}, {"n1M"});
  EXPECT_TRUE(within.losses.empty()) << "registers up without an occupancy step lost is no loss";
  auto better = resource_diff({config("default", {kernel("k", 32, 0, 8, "warps")})}, {},
                              {config("default", {kernel("k", 96, 0, 4, "registers")})}, {}, {"n1M"});
  EXPECT_TRUE(better.losses.empty()) << "a gain is no loss";
}

TEST(ResourceDiff, LargerBlocksAtTheSameWarpsPerSmAreNoLoss) {
  auto d = resource_diff({config("BLOCK=512", {kernel("k", 32, 0, 4, "warps", {"n1M"}, 512)})}, {},
                         {config("BLOCK=256", {kernel("k", 32, 0, 8, "warps", {"n1M"}, 256)})}, {}, {"n1M"});
  EXPECT_TRUE(d.losses.empty()) << d.losses.front();
}

TEST(ResourceDiff, EachSideUsesTheConfigItTimesTheWorkloadWith) {
  std::vector<ConfigFacts> cand{config("BLOCK=256", {kernel("k", 32, 0, 8, "warps")}),
                                config("BLOCK=512", {kernel("k", 64, 0, 2, "registers", {"n1M", "n16M"}, 512)})};
  std::vector<ConfigFacts> inc{config("TILE=1", {kernel("old", 32, 0, 8, "warps")}),
                               config("TILE=2", {kernel("old", 40, 0, 8, "warps")})};
  auto d = resource_diff(cand, {{"n1M", "BLOCK=256"}, {"n16M", "BLOCK=512"}}, inc, {{"n16M", "TILE=2"}}, {"n1M", "n16M"});
  ASSERT_EQ(d.rows.size(), 2u);
  EXPECT_EQ(d.rows[0].candidate->config, "BLOCK=256");
  EXPECT_EQ(d.rows[0].incumbent->config, "TILE=1") << "a workload not named: the first config";
  EXPECT_EQ(d.rows[0].incumbent->kernel, "old") << "kernels of other names are paired in plan order";
  EXPECT_TRUE(d.rows[0].losses.empty());
  EXPECT_EQ(d.rows[1].candidate->config, "BLOCK=512");
  EXPECT_EQ(d.rows[1].incumbent->config, "TILE=2");
  ASSERT_EQ(d.losses.size(), 1u);
  EXPECT_EQ(d.losses[0].rfind("k: occupancy 8 → 2 blocks/SM, 64 → 32 warps", 0), 0u) << d.losses[0];
  EXPECT_NE(d.losses[0].find(" on n16M"), std::string::npos) << d.losses[0];
}

TEST(ResourceDiff, KernelsArePairedByNameThenInOrderAndAnUnpairedOneHasARowOfItsOwn) {
  std::vector<ConfigFacts> cand{config("default", {kernel("reduce", 32, 0, 8, "warps"), kernel("scan", 32, 0, 8, "warps"),
                                                   kernel("finish", 32, 0, 8, "warps")})};
  std::vector<ConfigFacts> inc{config("default", {kernel("scan", 32, 0, 8, "warps"), kernel("other", 32, 0, 8, "warps")})};
  auto d = resource_diff(cand, {}, inc, {}, {"n1M"});
  ASSERT_EQ(d.rows.size(), 3u);
  EXPECT_EQ(d.rows[0].candidate->kernel, "scan");
  EXPECT_EQ(d.rows[0].incumbent->kernel, "scan");
  EXPECT_EQ(d.rows[1].candidate->kernel, "reduce");
  EXPECT_EQ(d.rows[1].incumbent->kernel, "other");
  EXPECT_EQ(d.rows[2].candidate->kernel, "finish");
  EXPECT_FALSE(d.rows[2].incumbent);
}

TEST(ResourceDiff, NoOccupancyWithoutALaunchShapeAndNoRowsWithoutFacts) {
  KernelFacts launcher;  // cuda-launcher: ptxas facts, no launch shapes
  launcher.kernel = "_Z3fooPf";
  launcher.registers = 40;
  auto d = resource_diff({config("default", {launcher})}, {}, {config("default", {launcher})}, {}, {"n1M"});
  ASSERT_EQ(d.rows.size(), 1u);
  EXPECT_FALSE(d.rows[0].candidate->occupancy);
  EXPECT_FALSE(d.rows[0].candidate->dynamic_smem_bytes);
  EXPECT_TRUE(d.losses.empty());
  EXPECT_TRUE(resource_diff({}, {}, {}, {}, {"n1M"}).rows.empty());
  EXPECT_EQ(resource_table(ResourceDiff{}), "");
}

TEST(ResourceDiff, MatchingConfigPicksTheRecordedValuesElseTheFirst) {
  std::vector<ConfigFacts> facts{config("BLOCK=256,ROWS=2", {}), config("BLOCK=512,ROWS=2", {})};
  EXPECT_EQ(matching_config(facts, {{"BLOCK", 512}, {"ROWS", 2}, {"n", 1048576}}), "BLOCK=512,ROWS=2");
  EXPECT_EQ(matching_config(facts, {{"BLOCK", 1024}}), "BLOCK=256,ROWS=2");
  EXPECT_EQ(matching_config({config("default", {})}, {{"n", 4}}), "default");
  EXPECT_EQ(matching_config({}, {}), "");
}

TEST(ResourceDiff, JsonRoundTripAndTheTableNamesBothSidesAndTheLoss) {
  auto d = resource_diff({config("default", {kernel("k", 96, 1024, 12, "registers", {"n1M"}, 128)})}, {},
                         {config("default", {kernel("k", 72, 1024, 16, "warps", {"n1M"}, 128)})}, {}, {"n1M"});
  const auto j = to_json(d);
  EXPECT_EQ(j["rows"][0]["candidate"]["occupancy"]["limited_by"], "registers");
  EXPECT_EQ(j["rows"][0]["incumbent"]["static_smem_bytes"], 1024);
  EXPECT_EQ(j["rows"][0]["candidate"]["dynamic_smem_bytes"], 0);
  EXPECT_EQ(to_json(resource_diff_from_json(j)), j);
  const std::string t = resource_table(d);
  EXPECT_NE(t.find("candidate  k [default]: 96 regs"), std::string::npos) << t;
  EXPECT_NE(t.find("incumbent  k [default]: 72 regs"), std::string::npos) << t;
  EXPECT_NE(t.find("resource loss: k: occupancy 16 → 12 blocks/SM"), std::string::npos) << t;
}

TEST(ResourceDiff, TheVerdictCarriesItAndTheDecisionPartCopiesIt) {
  Verdict stored;
  stored.status = Status::accepted;
  Verdict judged = stored;
  judged.summary.resources = resource_diff({config("default", {kernel("k", 96, 0, 12, "registers", {"n1M"}, 128)})}, {},
                                           {config("default", {kernel("k", 72, 0, 16, "warps", {"n1M"}, 128)})}, {},
                                           {"n1M"});
  EXPECT_TRUE(to_json(stored)["summary"]["resources"].is_null()) << "null until compared";
  const auto part = merge_comparison(stored, judged);
  ASSERT_TRUE(part.merged.summary.resources);
  EXPECT_EQ(part.comparison["resources"], to_json(*judged.summary.resources));
  auto back = verdict_from_json(to_json(part.merged));
  ASSERT_TRUE(back);
  ASSERT_TRUE(back->summary.resources);
  EXPECT_EQ(back->summary.resources->losses, judged.summary.resources->losses);
}

}  // namespace
