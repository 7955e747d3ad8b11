// Reading disassembled SASS (build/sass_mix.cpp): nvdisasm -c's and cuobjdump --dump-sass's
// layouts (as the toolkit prints them for sm_90), predicated instructions, and text a hostile
// cubin could make the tool print.
#include <gtest/gtest.h>

#include "build/sass_mix.hpp"

namespace kwb::build {
namespace {

// nvdisasm -c: one .text.NAME section per function.
constexpr const char* k_nvdisasm = R"sass(
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
	.elftype	@"ET_EXEC"

//--------------------- .text.copy4               --------------------------
	.section	.text.copy4,"ax",@progbits
	.sectioninfo	@"SHI_REGISTERS=16"
	.align	128
        .global         copy4
        .type           copy4,@function
        .other          copy4,@"STO_CUDA_ENTRY STV_DEFAULT"
copy4:
.text.copy4:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   S2R R0, SR_TID.X ;
        /*0020*/                   ISETP.GE.AND P0, PT, R0, UR4, PT ;
        /*0030*/               @P0 EXIT ;
        /*0040*/                   LDG.E.128.CONSTANT R4, desc[UR4][R2.64] ;
        /*0050*/                   LDG.E R8, desc[UR4][R2.64+0x10] ;
        /*0060*/              @!P1 LDG.E.64 R10, desc[UR4][R2.64+0x20] ;
        /*0070*/                   STG.E.128 desc[UR4][R6.64], R4 ;
        /*0080*/                   STL [R1], R8 ;
        /*0090*/                   LDL R9, [R1] ;
        /*00a0*/                   STS [R0], R9 ;
        /*00b0*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*00c0*/                   LDS R9, [R0+0x4] ;
        /*00d0*/                   EXIT ;
.L_x_0:
        /*00e0*/                   BRA `(.L_x_0);
        /*00f0*/                   NOP;

//--------------------- .text.gemm                --------------------------
	.section	.text.gemm,"ax",@progbits
gemm:
.text.gemm:
        /*0000*/                   LDGSTS.E.BYPASS.LTC128B.128 [R3], desc[UR4][R4.64] ;
        /*0010*/                   LDSM.16.M88.4 R8, [R3] ;
        /*0020*/                   HMMA.16816.F32.BF16 R12, R8, R4, R12 ;
        /*0030*/                   WARPGROUP.ARRIVE ;
        /*0040*/                   HGMMA.64x128x16.F32.BF16 R24, gdesc[UR8], R24, gsb0 ;
        /*0050*/                   UTMALDG.2D [UR8], [UR4] ;
        /*0060*/                   EXIT ;
)sass";

// cuobjdump --dump-sass: "Function : NAME", and the encoding after each instruction.
constexpr const char* k_cuobjdump = R"sass(
	code for sm_90a
		Function : scale
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                      /* 0x00000a00ff017b82 */
                                                                             /* 0x000fe40000000800 */
        /*0040*/                   LDG.E R2, desc[UR4][R2.64] ;                /* 0x0000000402027981 */
        /*0050*/                   STG.E desc[UR4][R4.64], R2 ;                /* 0x0000000204007986 */
        /*0060*/                   EXIT ;                                      /* 0x000000000000794d */
		..........
)sass";

TEST(SassMix, NvdisasmSectionsPerFunction) {
  auto m = scan_sass(k_nvdisasm);
  ASSERT_EQ(m.size(), 2u);
  const auto& c = m.at("copy4");
  EXPECT_EQ(c.instructions, 16);
  EXPECT_EQ(c.ldg_128, 1);
  EXPECT_EQ(c.ldg_32, 1);
  EXPECT_EQ(c.ldg_64, 1);  // predicated
  EXPECT_EQ(c.stg_128, 1);
  EXPECT_EQ(c.stg_32 + c.stg_64, 0);
  EXPECT_EQ(c.stl, 1);
  EXPECT_EQ(c.ldl, 1);
  EXPECT_EQ(c.sts, 1);
  EXPECT_EQ(c.lds, 1);
  EXPECT_FALSE(c.tensor_cores());
  const auto& g = m.at("gemm");
  EXPECT_EQ(g.ldgsts, 1);
  EXPECT_EQ(g.ldg_128, 0);  // LDGSTS is not an LDG
  EXPECT_EQ(g.ldsm, 1);
  EXPECT_EQ(g.lds, 0);
  EXPECT_EQ(g.hmma, 1);
  EXPECT_EQ(g.hgmma, 1);
  EXPECT_EQ(g.tma, 1);
  EXPECT_TRUE(g.tensor_cores());
}

TEST(SassMix, CuobjdumpFunctions) {
  auto m = scan_sass(k_cuobjdump);
  ASSERT_EQ(m.size(), 1u);
  const auto& s = m.at("scale");
  EXPECT_EQ(s.instructions, 4);  // the encoding-only lines are not instructions
  EXPECT_EQ(s.ldg_32, 1);
  EXPECT_EQ(s.stg_32, 1);
}

TEST(SassMix, HostileTextIsReadSafely) {
  EXPECT_TRUE(scan_sass("").empty());
  // Instructions before any function, odd address fields, data lines and labels count nowhere.
  auto m = scan_sass(
      "        /*0000*/ LDG.E.128 R4, [R2] ;\n"
      "Function : k\n"
      "        /*zz*/ LDG.E.128 R4, [R2] ;\n"
      "        /*0010*/ \t.byte\t0xff, 0xff\n"
      "        /*0020*/ @P0\n"
      "        /*0030*/ ldg.e R1 ;\n"
      "        /*0040 LDG.E R1 ;\n"
      "        /*0050*/ LDG.E.128\n"
      "        /*0060*/ LDG.E.128 R4, [R2] ;\n");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m.at("k").instructions, 1);
  EXPECT_EQ(m.at("k").ldg_128, 1);
  std::string many;
  for (int i = 0; i < 5000; ++i) many += "Function : f" + std::to_string(i) + "\n";
  EXPECT_EQ(scan_sass(many).size(), 4096u);  // capped
}

TEST(SassMix, AccessWidthsFromTheModifiers) {
  core::SassMix m;
  for (const char* op : {"LDG.E.U8", "LDG.E.S16", "LDG.E.64.SYS", "LDG.E.128.STRONG.GPU", "STG.E.64", "STG.E.U16"})
    count_sass_opcode(op, m);
  EXPECT_EQ(m.ldg_32, 2);
  EXPECT_EQ(m.ldg_64, 1);
  EXPECT_EQ(m.ldg_128, 1);
  EXPECT_EQ(m.stg_64, 1);
  EXPECT_EQ(m.stg_32, 1);
  EXPECT_EQ(m.instructions, 6);
}

}  // namespace
}  // namespace kwb::build
