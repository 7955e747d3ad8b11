// Parsing ptxas's verbose report and the PTX (build/compiler_facts.cpp): what NVRTC 13 prints with
// --ptxas-options=-v, and malformed or hostile text that must not crash or mislead.
#include <gtest/gtest.h>

#include "build/compiler_facts.hpp"

namespace kwb::build {
namespace {

constexpr const char* k_log =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'k2' for 'sm_90a'\n"
    "ptxas info    : Function properties for k2\n"
    "ptxas         .     256 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
    "ptxas info    : Used 28 registers, used 1 barriers, 256 bytes cumulative stack size, 1024 bytes smem\n"
    "ptxas info    : Compile time = 246.133 ms\n"
    "ptxas info    : Function properties for helper\n"
    "ptxas         .     64 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Compiling entry function 'k1' for 'sm_90a'\n"
    "ptxas info    : Function properties for k1\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 14 registers, used 0 barriers\n";

TEST(CompilerFacts, PtxasReport) {
  auto info = parse_ptxas_info(k_log);
  ASSERT_EQ(info.size(), 2u);
  const auto& k2 = info.at("k2");
  EXPECT_EQ(k2.registers, 28);
  EXPECT_EQ(k2.barriers, 1);
  EXPECT_EQ(k2.stack_frame_bytes, 256);  // its own frame, not the helper's
  EXPECT_EQ(k2.spill_store_bytes, 8);
  EXPECT_EQ(k2.spill_load_bytes, 12);
  EXPECT_EQ(k2.static_smem_bytes, 1024);
  const auto& k1 = info.at("k1");
  EXPECT_EQ(k1.registers, 14);
  EXPECT_EQ(k1.static_smem_bytes, 0);
  EXPECT_EQ(k1.stack_frame_bytes, 0);
}

TEST(CompilerFacts, HostileLogIsReadSafely) {
  EXPECT_TRUE(parse_ptxas_info("").empty());
  EXPECT_TRUE(parse_ptxas_info("Used 99 registers\nptxas info : Used 12 registers\n").empty());  // no entry yet
  auto info = parse_ptxas_info(
      "ptxas info : Compiling entry function 'k' for 'sm_90a'\n"
      "ptxas info : Used 99999999999999999999999 registers, used -3 barriers, x bytes smem\n"
      "ptxas info : Compiling entry function 'unterminated\n");
  ASSERT_EQ(info.count("k"), 1u);
  EXPECT_EQ(info.at("k").registers, 0);  // an overflowing number is not read
  EXPECT_EQ(info.at("k").barriers, 0);
  EXPECT_EQ(info.at("k").static_smem_bytes, 0);
}

constexpr const char* k_ptx = R"(
.version 9.0
.target sm_90a
.visible .entry copy4(
	.param .u64 copy4_param_0
)
.maxntid 128, 1, 1
{
	ld.param.u64 	%rd2, [copy4_param_0];
	ld.global.nc.v4.f32 	{%f1, %f2, %f3, %f4}, [%rd9];
	@%p1 st.global.v4.f32 	[%rd8], {%f1, %f2, %f3, %f4};
	ld.global.f32 	%f5, [%rd9];
	st.global.v2.f32 	[%rd8], {%f1, %f2};
	st.shared.f32 	[%r1], %f1;
	ld.shared.f32 	%f6, [%r1];
	cp.async.ca.shared.global [%r2], [%rd3], 16;
	ret;
}
.func helper()
{
	ld.global.f32 	%f1, [%rd1];
}
.visible .entry gemm(
	.param .u64 gemm_param_0
)
{
	mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f1,%f2,%f3,%f4};
	wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%f1}, %rd1, %rd2, 1, 1, 1, 0, 0;
	ld.local.f32 %f9, [%rd4];
}
)";

TEST(CompilerFacts, PtxInstructionMix) {
  auto e = scan_ptx(k_ptx);
  ASSERT_EQ(e.size(), 2u);
  const auto& c = e.at("copy4");
  EXPECT_EQ(c.maxntid, 128);
  EXPECT_EQ(c.mix.ld_global_v4, 1);
  EXPECT_EQ(c.mix.ld_global, 1);  // the helper's load is not counted for copy4
  EXPECT_EQ(c.mix.st_global_v4, 1);  // predicated
  EXPECT_EQ(c.mix.st_global_v2, 1);
  EXPECT_EQ(c.mix.ld_shared, 1);
  EXPECT_EQ(c.mix.st_shared, 1);
  EXPECT_EQ(c.mix.cp_async, 1);
  EXPECT_FALSE(c.mix.tensor_cores());
  const auto& g = e.at("gemm");
  EXPECT_EQ(g.mix.mma, 1);
  EXPECT_EQ(g.mix.wgmma, 1);
  EXPECT_TRUE(g.mix.tensor_cores());
  EXPECT_EQ(g.maxntid, 0);
}

TEST(CompilerFacts, ConfigFactsInPlanOrder) {
  auto f = config_facts("BLOCK=128", "sm_90a", k_log, ".visible .entry k1(\n)\n.maxntid 256\n{\nld.global.v4.f32 {%f1}, [%rd1];\n}\n",
                        {"k1", "k2", "k1", "missing"});
  EXPECT_EQ(f.config, "BLOCK=128");
  EXPECT_EQ(f.source, "nvrtc ptxas -v");
  ASSERT_EQ(f.kernels.size(), 3u);  // k1 launched twice: one entry
  EXPECT_EQ(f.kernels[0].kernel, "k1");
  EXPECT_EQ(f.kernels[0].max_threads_per_block, 256);  // .maxntid caps what 14 registers allow
  EXPECT_EQ(f.kernels[0].instructions.ld_global_v4, 1);
  EXPECT_EQ(f.kernels[1].kernel, "k2");
  EXPECT_EQ(f.kernels[1].max_threads_per_block, 1024);
  EXPECT_EQ(f.kernels[2].kernel, "missing");
  EXPECT_EQ(f.kernels[2].registers, 0);
}

}  // namespace
}  // namespace kwb::build
