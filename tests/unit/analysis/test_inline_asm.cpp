#include "support.hpp"

namespace kwb::analysis::test {
namespace {

TEST(InlineAsm, X86AsmInCpuKernelIsAnError) {
  auto r = run(vector_add("long ret; asm volatile(\"syscall\" : \"=a\"(ret) : \"a\"(39L) : \"rcx\", \"r11\");"));
  KWB_REQUIRE_AVAILABLE(r);
  const auto* f = find(r, "inline-asm");
  ASSERT_NE(f, nullptr) << dump(r);
  EXPECT_EQ(f->severity, "error");
  EXPECT_EQ(f->line, 4);
  EXPECT_NE(f->message.find("can issue system calls"), std::string::npos);
}

TEST(InlineAsm, CompilerBarrierIsFine) {
  auto r = run(vector_add("for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];\nasm volatile(\"\" ::: \"memory\");"));
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_TRUE(r.findings.empty()) << dump(r);
}

TEST(InlineAsm, FileScopeAsmIsAnError) {
  auto r = run(vector_add("", "__asm__(\".incbin \\\"/etc/passwd\\\"\");"));
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_EQ(count(r, "inline-asm"), 1) << dump(r);
}

TEST(InlineAsm, AllowListedPtxInDeviceCodeIsFine) {
  auto r = run(R"(
__device__ unsigned lane() { unsigned r; asm volatile("mov.u32 %0, %%laneid;" : "=r"(r)); return r; }
__device__ void ld(const void* p, unsigned& x) {
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %1, 0;\n\t@p ld.global.nc.b32 %0, [%2];\n}\n"
               : "=r"(x) : "r"(1), "l"(p));
}
__device__ void cp(void* s, const void* g) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(0u), "l"(g));
  asm volatile("cp.async.wait_all;\n" ::);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(*(unsigned*)s), "=r"(*(unsigned*)s), "=r"(*(unsigned*)s), "=r"(*(unsigned*)s) : "r"(0u));
  asm volatile("bar.sync 0;");
}
extern "C" __global__ void k(float* c) { unsigned x; ld(c, x); c[0] = float(lane() + x); }
)",
               "vector_add", "cuda", "f32", {"k"});
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_EQ(count(r, "inline-asm"), 0) << dump(r);
  EXPECT_EQ(count(r, "parse"), 0) << dump(r);
}

// "::" qualifiers (cache hints, TMA's state spaces) are part of the opcode, not a label; a label
// before an instruction still is.
TEST(InlineAsm, QualifiedOpcodesAndLabelsAreRead) {
  auto r = run(R"(
__device__ float keep(const float* p) {
  unsigned long long policy;
  float v;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(v) : "l"(p), "l"(policy));
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 16, [%2];"
               :: "r"(0u), "l"(p), "r"(0u));
  asm volatile("{\n done: bar.sync 0;\n}" ::);
  return v;
}
extern "C" __global__ void k(float* c) { c[0] = keep(c); }
)",
               "vector_add", "cuda", "f32", {"k"});
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_EQ(count(r, "inline-asm"), 0) << dump(r);
  auto bad = run(R"(
extern "C" __global__ void k(float* c) { asm volatile("again: trap;"); asm volatile("pmevent.mask::x 1;"); }
)",
                 "vector_add", "cuda", "f32", {"k"});
  ASSERT_EQ(count(bad, "inline-asm"), 2) << dump(bad);
  std::string all = dump(bad);
  EXPECT_NE(all.find("the instruction 'trap'"), std::string::npos) << all;
  EXPECT_NE(all.find("the instruction 'pmevent.mask::x'"), std::string::npos) << all;
}

// What ptxas reads as a label before a forbidden instruction, or as a blank, must not hide it.
TEST(InlineAsm, LabelsCommentsAndBlanksDoNotHideAnInstruction) {
  for (const char* tmpl : {"mov : trap;", "mov\\t: trap;", "mov /* x */ : trap;", "cp : cp2: trap;",
                           "ld : nanosleep.u32 5;", "@p\\rtrap;", "trap\\f;"}) {
    auto r = run(std::string("extern \"C\" __global__ void k(float* c) { asm volatile(\"") + tmpl + "\"); }\n",
                 "vector_add", "cuda", "f32", {"k"});
    KWB_REQUIRE_AVAILABLE(r);
    EXPECT_EQ(count(r, "inline-asm"), 1) << tmpl << "\n" << dump(r);
  }
}

TEST(InlineAsm, PtxOutsideTheAllowListIsAnError) {
  auto r = run(R"(
extern "C" __global__ void k(float* c) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  asm volatile("trap;");
  c[0] = float(t);
}
)",
               "vector_add", "cuda", "f32", {"k"});
  KWB_REQUIRE_AVAILABLE(r);
  ASSERT_EQ(count(r, "inline-asm"), 2) << dump(r);
  std::string all = dump(r);
  EXPECT_NE(all.find("clock register"), std::string::npos) << all;
  EXPECT_NE(all.find("the instruction 'trap'"), std::string::npos) << all;
}

TEST(InlineAsm, HostCodeInCudaFileIsX86) {
  auto r = run("void host_side() { asm volatile(\"nop\"); }\nextern \"C\" __global__ void k(float* c) {}\n",
               "vector_add", "cuda-launcher");
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_EQ(count(r, "inline-asm"), 1) << dump(r);
}

TEST(InlineAsm, TemplateFromAMacroCannotBeChecked) {
  auto r = run(R"(
#define INSN "mov.u32 %0, 1;"
extern "C" __global__ void k(unsigned* c) { unsigned r; asm volatile(INSN : "=r"(r)); c[0] = r; }
)",
               "vector_add", "cuda", "f32", {"k"});
  KWB_REQUIRE_AVAILABLE(r);
  ASSERT_EQ(count(r, "inline-asm"), 1) << dump(r);
  EXPECT_NE(find(r, "inline-asm")->message.find("not a plain string literal"), std::string::npos);
}

TEST(SymbolAlias, AttributesAndPragmasAreErrors) {
  auto weak = run(vector_add("f(\"id\");", "static int f(const char*) __attribute__((weakref(\"system\")));"));
  KWB_REQUIRE_AVAILABLE(weak);
  EXPECT_GE(count(weak, "symbol-alias"), 1) << dump(weak);
  auto pragma = run(vector_add("", "#pragma redefine_extname my_run system\nextern \"C\" int my_run(const char*);"));
  EXPECT_EQ(count(pragma, "symbol-alias"), 1) << dump(pragma);
  auto clean = run(vector_add("c[0] = f(a[0]);", "static inline float f(float x) __attribute__((always_inline));\n"
                                                 "static inline float f(float x) { return x; }"));
  EXPECT_TRUE(clean.findings.empty()) << dump(clean);
}

}  // namespace
}  // namespace kwb::analysis::test
