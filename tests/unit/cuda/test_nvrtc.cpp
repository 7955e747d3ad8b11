// NVRTC compiles through the sandboxed warm worker (real NVRTC; no GPU needed), the cubin cache
// and NVRTC diagnostics.
#include <gtest/gtest.h>

#include "../../gpu/cuda_test_support.hpp"
#include "temp_dir.hpp"
#include "build/compiler_facts.hpp"
#include "build/nvrtc_compiler.hpp"
#include "build/nvrtc_diagnostics.hpp"

namespace kwb::build {
namespace {

NvrtcOptions options(const std::filesystem::path& dir) {
  NvrtcOptions o;
  o.worker = cudatest::bin_dir() / "kwb-nvrtc-worker";
  o.scratch_parent = dir / "jobs";
  o.cache_dir = dir / "cache";
  o.timeout_ms = 60000;
  o.max_workers = 2;
  return o;
}

const char* k_kernel = R"(
extern "C" __global__ void scale(const float* x, float* y, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = FACTOR * x[i];
}
)";

TEST(Nvrtc, CompilesConfigsInParallelAndCaches) {
  kwb::test::TempDir dir;
  NvrtcCompiler compiler(options(dir.path()));
  std::vector<CudaCompileRequest> reqs;
  for (int f : {2, 3, 4}) reqs.push_back({k_kernel, "scale.cu", {"-DFACTOR=" + std::to_string(f)}, {}});
  auto first = compiler.compile_all(reqs);
  ASSERT_TRUE(first) << first.error().what();
  ASSERT_EQ(first->size(), 3u);
  for (const auto& r : *first) {
    EXPECT_TRUE(r.ok) << r.reason << "\n" << r.log;
    EXPECT_FALSE(r.cached);
    ASSERT_GT(r.cubin.size(), 4u);
    EXPECT_EQ(r.cubin.substr(0, 4), std::string("\x7f" "ELF"));  // a cubin is an ELF image
  }
  EXPECT_NE((*first)[0].key, (*first)[1].key);
  EXPECT_NE((*first)[0].cubin, (*first)[1].cubin);
  EXPECT_NE(compiler.identity().find("NVRTC 13"), std::string::npos) << compiler.identity();
  EXPECT_NE(compiler.identity().find("sm_90a"), std::string::npos);

  NvrtcCompiler again(options(dir.path()));  // a new pool: the hit comes from the files
  auto second = again.compile_all(reqs);
  ASSERT_TRUE(second) << second.error().what();
  for (size_t i = 0; i < reqs.size(); ++i) {
    EXPECT_TRUE((*second)[i].cached);
    EXPECT_EQ((*second)[i].cubin, (*first)[i].cubin);
    EXPECT_EQ((*second)[i].log, (*first)[i].log);
    EXPECT_EQ((*second)[i].ptx, (*first)[i].ptx);  // the cache keeps the PTX too
    EXPECT_EQ((*second)[i].key, (*first)[i].key);
  }
  // Issue 19: the worker returns the PTX and ptxas's verbose report (the compiler facts' source).
  EXPECT_NE((*first)[0].ptx.find(".entry scale"), std::string::npos);
  auto facts = config_facts("FACTOR=2", "sm_90a", (*first)[0].log, (*first)[0].ptx, {"scale"});
  ASSERT_EQ(facts.kernels.size(), 1u);
  EXPECT_GT(facts.kernels[0].registers, 0) << (*first)[0].log;
  EXPECT_EQ(facts.kernels[0].spill_store_bytes, 0);
  EXPECT_EQ(facts.kernels[0].instructions.ld_global, 1) << (*first)[0].ptx;
  EXPECT_EQ(facts.kernels[0].instructions.st_global, 1);
  EXPECT_EQ(facts.kernels[0].max_threads_per_block, 1024);
  EXPECT_TRUE(parse_nvrtc_log((*first)[0].log, "candidate.cu", "scale.cu").empty())
      << "ptxas's info lines must not become diagnostics";
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "cache" / ((*first)[0].key + ".key")));
}

// The L2 eviction policies a config's PTX uses come back with the compile and from the cache; a
// tunable can switch them on for one config only.
TEST(Nvrtc, L2PoliciesAreReportedPerConfigAndCached) {
  const char* kernel = R"(
extern "C" __global__ void keep(const float* x, float* y) {
#if KEEP
  unsigned long long p;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  asm volatile("prefetch.global.L2::evict_last [%0];" :: "l"(x));
#endif
  y[0] = x[0];
}
)";
  kwb::test::TempDir dir;
  std::vector<CudaCompileRequest> reqs = {{kernel, "keep.cu", {"-DKEEP=0"}, {}}, {kernel, "keep.cu", {"-DKEEP=1"}, {}}};
  for (int round = 0; round < 2; ++round) {  // the second from the cache
    NvrtcCompiler compiler(options(dir.path()));
    auto r = compiler.compile_all(reqs);
    ASSERT_TRUE(r) << r.error().what();
    ASSERT_TRUE((*r)[0].ok && (*r)[1].ok) << (*r)[0].log << (*r)[1].log;
    EXPECT_EQ((*r)[0].cached, round == 1);
    EXPECT_EQ((*r)[0].l2_policy, "");
    EXPECT_EQ((*r)[1].l2_policy, "evict_last");
  }
}

TEST(Nvrtc, CompileErrorsNameFileLineAndColumn) {
  kwb::test::TempDir dir;
  NvrtcCompiler compiler(options(dir.path()));
  std::string src = "extern \"C\" __global__ void k(float* y) {\n  y[0] = missing_name;\n}\n";
  auto r = compiler.compile_all({{src, "mine.cu", {}, {}}});
  ASSERT_TRUE(r) << r.error().what();
  const auto& c = (*r)[0];
  EXPECT_FALSE(c.ok);
  EXPECT_FALSE(c.internal);
  EXPECT_EQ(c.reason.rfind("mine.cu:2:10: identifier \"missing_name\" is undefined", 0), 0u) << c.reason;
  ASSERT_FALSE(c.diagnostics.empty());
  EXPECT_EQ(c.diagnostics[0].file, "mine.cu");
  EXPECT_EQ(c.diagnostics[0].line, 2);
  EXPECT_EQ(c.diagnostics[0].col, 10);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "cache" / (c.key + ".cubin")));  // failures are not cached
}

TEST(Nvrtc, TheCompileSeesNoHostFiles) {
  kwb::test::TempDir dir;
  NvrtcCompiler compiler(options(dir.path()));
  auto r = compiler.compile_all({{"#include \"/etc/passwd\"\n", "evil.cu", {}, {}}});
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_FALSE((*r)[0].ok);
  EXPECT_NE((*r)[0].reason.find("cannot open source file"), std::string::npos) << (*r)[0].reason;
}

TEST(Nvrtc, CandidateFlagsAreChecked) {
  EXPECT_TRUE(check_nvrtc_flags({"-DX=1", "-UY", "--use_fast_math", "--maxrregcount=64", "--ftz=true"}));
  for (std::string bad : {"--include-path=/etc", "-I/etc", "--pre-include=/etc/passwd", "-D", "--gpu-architecture=sm_80",
                          "-DX=1 -I/etc"})
    EXPECT_FALSE(check_nvrtc_flags({bad})) << bad;
  kwb::test::TempDir dir;
  NvrtcCompiler compiler(options(dir.path()));
  auto r = compiler.compile_all({{k_kernel, "scale.cu", {"-DFACTOR=2"}, {"-I/etc"}}});
  ASSERT_TRUE(r);
  EXPECT_FALSE((*r)[0].ok);
  EXPECT_NE((*r)[0].reason.find("'-I/etc' is not allowed"), std::string::npos) << (*r)[0].reason;
}

TEST(NvrtcDiagnostics, ParsesErrorsWarningsAndOptionErrors) {
  std::string log =
      "candidate.cu(6): error: identifier \"foo\" is undefined\n"
      "    y[0] = foo;\n"
      "           ^\n\n"
      "candidate.cu(5): warning #177-D: variable \"x\" was declared but never referenced\n"
      "    int x = 3;\n"
      "        ^\n\n"
      "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n\n"
      "/usr/local/cuda/include/other.h(3): error: something\n\n"
      "nvrtc: error: unrecognized option --bogus found\n";
  auto d = parse_nvrtc_log(log, "candidate.cu", "mine.cu");
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d[0].file, "mine.cu");
  EXPECT_EQ(d[0].line, 6);
  EXPECT_EQ(d[0].col, 10);
  EXPECT_EQ(d[0].severity, "error");
  EXPECT_EQ(d[1].severity, "warning");
  EXPECT_EQ(d[1].col, 7);
  EXPECT_EQ(d[1].message, "variable \"x\" was declared but never referenced");
  EXPECT_EQ(d[2].file, "/usr/local/cuda/include/other.h");
  EXPECT_EQ(d[2].col, 0);
  EXPECT_EQ(d[3].line, 0);
  EXPECT_EQ(d[3].message, "unrecognized option --bogus found");
}

TEST(CubinKey, EveryInputChangesTheKey) {
  auto base = cubin_key("13.0", "sm_90a", {"-DB=1"}, "candidate.cu", "src");
  EXPECT_EQ(base.hex, cubin_key("13.0", "sm_90a", {"-DB=1"}, "candidate.cu", "src").hex);
  EXPECT_NE(base.hex, cubin_key("13.1", "sm_90a", {"-DB=1"}, "candidate.cu", "src").hex);
  EXPECT_NE(base.hex, cubin_key("13.0", "sm_100a", {"-DB=1"}, "candidate.cu", "src").hex);
  EXPECT_NE(base.hex, cubin_key("13.0", "sm_90a", {"-DB=2"}, "candidate.cu", "src").hex);
  EXPECT_NE(base.hex, cubin_key("13.0", "sm_90a", {"-DB=1"}, "candidate.cu", "src2").hex);
  EXPECT_EQ(base.text.rfind("kwb-cubin-v3\n", 0), 0u);
}

}  // namespace
}  // namespace kwb::build
