#include <gtest/gtest.h>

#include "core/profile.hpp"

namespace kwb::core {
namespace {

using Json = nlohmann::json;

KernelProfile full_profile() {
  KernelProfile p;
  p.kernel = "transpose_naive";
  p.duration_ns = 187232;
  p.grid = "(128, 512, 1)";
  p.block = "(32, 8, 1)";
  p.dram_sol_pct = 41.5;
  p.memory_sol_pct = 88.25;
  p.sm_sol_pct = 12.5;
  p.achieved_occupancy_pct = 81.75;
  p.theoretical_occupancy_pct = 100;
  p.occupancy_limiter = "warps";
  p.registers_per_thread = 16;
  p.l1_hit_pct = 0.5;
  p.l2_hit_pct = 49.75;
  p.global_load_sectors_per_request = 4;
  p.global_store_sectors_per_request = 32;
  p.shared_load_bank_conflicts = 0;
  p.shared_store_bank_conflicts = 3;
  p.shared_load_wavefronts = 1 << 20;
  p.shared_store_wavefronts = 5'000'000'000;  // beyond 32 bits
  p.tensor_pipe_pct = 0;
  p.local_load_bytes = 0;
  p.local_store_bytes = 128;
  p.stalls = {{"long_scoreboard", 12.5, 61.25}, {"lg_throttle", std::nullopt, 20}};
  p.findings = {"global stores use 32.0 sectors per request where 4 would do: uncoalesced"};
  p.ncu_rules = {{"MemoryWorkloadAnalysis_Tables", "UncoalescedGlobalAccess", "OPT", "stores are uncoalesced", 85.5},
                 {"SpeedOfLight", "SOLBottleneck", "INF", "memory is busier than compute", std::nullopt}};
  return p;
}

TEST(ProfileJson, KernelProfileRoundTrips) {
  KernelProfile p = full_profile();
  Json j = to_json(p);
  EXPECT_EQ(j.at("global_store_sectors_per_request"), 32.0);
  EXPECT_EQ(j.at("registers_per_thread"), 16);
  EXPECT_EQ(j.at("shared_store_wavefronts").get<int64_t>(), 5'000'000'000);
  EXPECT_EQ(j.at("stalls").at(1).at("ratio"), nullptr);
  EXPECT_EQ(j.at("ncu_rules").at(1).at("estimated_speedup_pct"), nullptr);
  KernelProfile back = kernel_profile_from_json(Json::parse(j.dump()));
  EXPECT_EQ(to_json(back), j);
  EXPECT_EQ(back.stalls.at(0).reason, "long_scoreboard");
  EXPECT_EQ(back.ncu_rules.at(0).estimated_speedup_pct, 85.5);
}

TEST(ProfileJson, MetricsNotMeasuredAreNullNotZero) {
  KernelProfile p;
  p.kernel = "k";
  p.shared_load_bank_conflicts = 0;  // measured: zero
  Json j = to_json(p);
  for (const char* key : {"duration_ns", "dram_sol_pct", "memory_sol_pct", "sm_sol_pct", "achieved_occupancy_pct",
                          "theoretical_occupancy_pct", "occupancy_limiter", "registers_per_thread", "l1_hit_pct",
                          "l2_hit_pct", "global_load_sectors_per_request", "global_store_sectors_per_request",
                          "shared_store_bank_conflicts", "tensor_pipe_pct", "local_load_bytes", "grid", "block"})
    EXPECT_TRUE(j.at(key).is_null()) << key;
  EXPECT_EQ(j.at("shared_load_bank_conflicts"), 0);
  KernelProfile back = kernel_profile_from_json(j);
  EXPECT_FALSE(back.dram_sol_pct.has_value());
  EXPECT_FALSE(back.registers_per_thread.has_value());
  ASSERT_TRUE(back.shared_load_bank_conflicts.has_value());
  EXPECT_EQ(*back.shared_load_bank_conflicts, 0);
}

TEST(ProfileJson, SanitizerRunRoundTrips) {
  SanitizerRun r;
  r.tool = "racecheck";
  r.status = "findings";
  r.error_count = 2;
  r.warning_count = 1;
  SanitizerFinding f;
  f.tool = "racecheck";
  f.severity = "error";
  f.kind = "shared memory hazard (RAW)";
  f.file = "probe.cu";
  f.line = 13;
  f.kernel = "smem_race";
  f.other_file = "candidate.cu";
  f.other_line = 14;
  f.hazards = 2048;
  f.message = "Error: Race reported between Write access at smem_race+0x90 in candidate.cu:13 and ...";
  r.findings.push_back(f);
  SanitizerFinding oob;
  oob.tool = "memcheck";
  oob.severity = "error";
  oob.kind = "invalid global write";
  oob.access_size_bytes = 4;
  oob.address = "0x7f5ee2000fa0";
  oob.thread = "(232,0,0)";
  oob.block = "(3,0,0)";
  oob.detail = "is out of bounds";
  r.findings.push_back(oob);
  Json j = to_json(r);
  EXPECT_EQ(j.at("findings").at(1).at("file"), nullptr);  // no line information
  EXPECT_EQ(j.at("findings").at(1).at("line"), nullptr);
  EXPECT_EQ(j.at("reason"), nullptr);
  SanitizerRun back = sanitizer_run_from_json(Json::parse(j.dump()));
  EXPECT_EQ(to_json(back), j);
  EXPECT_EQ(back.findings.at(0).other_line, 14);
  EXPECT_EQ(back.findings.at(1).access_size_bytes, 4);
}

TEST(ProfileJson, ForeignJsonGivesEmptyValues) {
  EXPECT_TRUE(kernel_profile_from_json(Json::array()).kernel.empty());
  EXPECT_TRUE(sanitizer_run_from_json("text").status.empty());
  Json odd = {{"kernel", 3}, {"stalls", "none"}, {"dram_sol_pct", "87"}};
  KernelProfile p = kernel_profile_from_json(odd);
  EXPECT_TRUE(p.kernel.empty());
  EXPECT_TRUE(p.stalls.empty());
  EXPECT_FALSE(p.dram_sol_pct.has_value());
}

}  // namespace
}  // namespace kwb::core
