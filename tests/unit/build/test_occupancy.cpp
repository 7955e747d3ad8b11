// The occupancy calculator against values of NVIDIA's CUDA occupancy calculator (cuda_occupancy.h
// rules) for sm_90: 64K registers and 2048 threads (64 warps) per SM, 32 blocks per SM, 228 KiB of
// shared memory per SM with 1 KiB reserved per block, registers in units of 256 per warp over 4
// sub-partitions.
#include <gtest/gtest.h>

#include "build/occupancy.hpp"

namespace kwb::build {
namespace {

ArchLimits sm90() {
  auto l = arch_limits("sm_90a");
  EXPECT_TRUE(l.has_value());
  return *l;
}

TEST(Occupancy, FullAtFewRegisters) {
  auto o = occupancy(sm90(), {32, 0}, 256, 0);
  EXPECT_EQ(o.blocks_per_sm, 8);
  EXPECT_EQ(o.warps_per_sm, 64);
  EXPECT_DOUBLE_EQ(o.pct, 100.0);
  EXPECT_EQ(o.limited_by, "warps");  // ties go to warps, not registers
}

TEST(Occupancy, RegistersHalveIt) {
  auto o = occupancy(sm90(), {64, 0}, 256, 0);
  EXPECT_EQ(o.blocks_per_sm, 4);
  EXPECT_DOUBLE_EQ(o.pct, 50.0);
  EXPECT_EQ(o.limited_by, "registers");
  // 28 registers round up to 32 per thread (256 per warp): still full.
  EXPECT_DOUBLE_EQ(occupancy(sm90(), {28, 0}, 256, 0).pct, 100.0);
  // 33 round up to 40: 16384 / 1280 = 12 warps per sub-partition, 48 per SM, 6 blocks of 8 warps.
  auto o33 = occupancy(sm90(), {33, 0}, 256, 0);
  EXPECT_EQ(o33.blocks_per_sm, 6);
  EXPECT_DOUBLE_EQ(o33.pct, 75.0);
}

TEST(Occupancy, MaximumRegisters) {
  auto o = occupancy(sm90(), {255, 0}, 128, 0);  // 8192 registers per warp: 8 warps per SM
  EXPECT_EQ(o.blocks_per_sm, 2);
  EXPECT_EQ(o.warps_per_sm, 8);
  EXPECT_DOUBLE_EQ(o.pct, 12.5);
  EXPECT_EQ(o.limited_by, "registers");
  EXPECT_EQ(occupancy(sm90(), {255, 0}, 512, 0).blocks_per_sm, 0);  // does not launch
  EXPECT_EQ(max_threads_per_block(sm90(), 255), 256);
}

TEST(Occupancy, MaxThreadsPerBlockFromRegisters) {
  EXPECT_EQ(max_threads_per_block(sm90(), 32), 1024);
  EXPECT_EQ(max_threads_per_block(sm90(), 64), 1024);  // 2048 x 32 warps = 65536 exactly
  EXPECT_EQ(max_threads_per_block(sm90(), 65), 896);   // 2304 per warp: 28 warps
  EXPECT_EQ(max_threads_per_block(sm90(), 128), 512);
  EXPECT_EQ(occupancy(sm90(), {64, 0}, 1024, 0).blocks_per_sm, 1);
  EXPECT_EQ(occupancy(sm90(), {65, 0}, 1024, 0).blocks_per_sm, 0);
}

TEST(Occupancy, SharedMemoryLimits) {
  // 48 KiB static + 1 KiB reserved = 50176 bytes: 233472 / 50176 = 4 blocks.
  auto o = occupancy(sm90(), {32, 48 * 1024}, 256, 0);
  EXPECT_EQ(o.blocks_per_sm, 4);
  EXPECT_DOUBLE_EQ(o.pct, 50.0);
  EXPECT_EQ(o.limited_by, "shared_memory");
  // Dynamic shared memory counts the same, rounded up to 128 bytes: 100000 + 1024 -> 101120: 2 blocks.
  EXPECT_EQ(occupancy(sm90(), {32, 0}, 256, 100000).blocks_per_sm, 2);
  // Over the 227 KiB per block: cannot launch.
  auto too_much = occupancy(sm90(), {32, 0}, 256, 228 * 1024);
  EXPECT_EQ(too_much.blocks_per_sm, 0);
  EXPECT_EQ(too_much.limited_by, "shared_memory");
}

TEST(Occupancy, BlockAndThreadLimits) {
  auto o = occupancy(sm90(), {16, 0}, 32, 0);  // one warp per block, 32 blocks at most
  EXPECT_EQ(o.blocks_per_sm, 32);
  EXPECT_DOUBLE_EQ(o.pct, 50.0);
  EXPECT_EQ(o.limited_by, "blocks");
  auto odd = occupancy(sm90(), {16, 0}, 96, 0);  // 3 warps: 64 / 3 = 21 blocks, 63 warps
  EXPECT_EQ(odd.blocks_per_sm, 21);
  EXPECT_EQ(odd.warps_per_sm, 63);
  auto big = occupancy(sm90(), {16, 0}, 2048, 0);
  EXPECT_EQ(big.blocks_per_sm, 0);
  EXPECT_EQ(big.limited_by, "threads");
}

TEST(Occupancy, ArchitectureTable) {
  EXPECT_TRUE(arch_limits("sm_90").has_value());
  EXPECT_TRUE(arch_limits("compute_90a").has_value());
  EXPECT_EQ(arch_limits("sm_80")->smem_per_sm, 164 * 1024);
  EXPECT_EQ(arch_limits("sm_86")->max_warps_per_sm, 48);
  EXPECT_FALSE(arch_limits("sm_52").has_value());
  EXPECT_FALSE(arch_limits("garbage").has_value());
}

}  // namespace
}  // namespace kwb::build
