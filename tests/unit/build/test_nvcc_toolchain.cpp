// The nvcc toolchain for cuda-launcher candidates: detection, the command line, the flag check and
// nvcc's diagnostics. Real compiles inside the sandbox: test_nvcc_compile.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "build/compiler_facts.hpp"
#include "build/launcher_flags.hpp"
#include "build/nvcc_diagnostics.hpp"
#include "build/nvcc_toolchain.hpp"
#include "temp_dir.hpp"

namespace kwb::build {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

bool nvcc_installed() { return fs::exists("/usr/local/cuda/bin/nvcc") || fs::exists("/usr/bin/nvcc"); }

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// ---------------------------------------------------------------- detection and command line

TEST(NvccToolchain, DetectFindsNvccAndReadsItsVersion) {
  if (!nvcc_installed()) GTEST_SKIP() << "no nvcc installed";
  auto t = NvccToolchain::detect();
  ASSERT_TRUE(t.has_value()) << t.error().what();
  ASSERT_TRUE(t->identity().starts_with("nvcc ")) << t->identity();
  const std::string version = t->identity().substr(5);
  ASSERT_FALSE(version.empty());
  EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(version[0]))) << t->identity();
  EXPECT_EQ(std::count(version.begin(), version.end(), '.'), 2) << t->identity();  // 13.0.88
  EXPECT_TRUE(t->path().string().starts_with("/usr/")) << t->path();
  EXPECT_TRUE(t->toolkit_root().string().starts_with("/usr/")) << t->toolkit_root();
  EXPECT_TRUE(fs::exists(t->toolkit_root() / "bin" / "nvcc"));
  EXPECT_TRUE(t->host_compiler().starts_with("gcc ")) << t->host_compiler();
  auto named = NvccToolchain::detect("nvcc");
  ASSERT_TRUE(named.has_value()) << named.error().what();
  EXPECT_EQ(named->identity(), t->identity());
}

TEST(NvccToolchain, NvccOutsideUsrIsRefused) {
  for (const std::string nvcc : {"/opt/cuda/bin/nvcc", "/tmp/nvcc", "./nvcc", "bin/nvcc", "/usrlocal/nvcc"}) {
    auto t = NvccToolchain::detect(nvcc);
    ASSERT_FALSE(t.has_value()) << nvcc;
    EXPECT_EQ(t.error().where, "nvcc");
    EXPECT_NE(t.error().message.find("/usr"), std::string::npos) << t.error().message;
  }
}

// "/usr/../tmp/x" is spelled under /usr but lives outside it: refused, and never run.
TEST(NvccToolchain, DotDotOutOfUsrIsRefusedAndNotRun) {
  TempDir dir;
  const fs::path fake = dir / "nvcc";
  const fs::path marker = dir / "ran";
  {
    std::ofstream out(fake);
    out << "#!/bin/sh\ntouch '" << marker.string() << "'\necho 'Cuda compilation tools, release 13.0, V13.0.88'\n";
  }
  fs::permissions(fake, fs::perms::owner_all);
  auto t = NvccToolchain::detect("/usr/.." + fake.string());
  EXPECT_FALSE(t.has_value());
  EXPECT_FALSE(fs::exists(marker)) << "detect ran a file outside /usr on the host";
}

TEST(NvccToolchain, MissingNvccIsAClearError) {
  auto t = NvccToolchain::detect("/usr/local/no-such-cuda/bin/nvcc");
  ASSERT_FALSE(t.has_value());
  EXPECT_EQ(t.error().where, "nvcc");
  EXPECT_NE(t.error().message.find("not found"), std::string::npos) << t.error().message;
  EXPECT_NE(t.error().message.find("/usr/local/no-such-cuda/bin/nvcc"), std::string::npos) << t.error().message;
}

TEST(NvccToolchain, CommandBuildsASharedObjectForTheArch) {
  if (!nvcc_installed()) GTEST_SKIP() << "no nvcc installed";
  auto t = NvccToolchain::detect();
  ASSERT_TRUE(t.has_value()) << t.error().what();
  auto base = t->base_flags("sm_90a");
  for (const char* f : {"-shared", "-Xcompiler", "-fPIC", "-O3", "-std=c++17", "--gpu-architecture=sm_90a"})
    EXPECT_TRUE(contains(base, f)) << f;

  auto plain = t->command({}, "sm_90a");
  EXPECT_EQ(plain[0], t->path().string());
  EXPECT_TRUE(contains(plain, "/job/candidate.cu"));
  EXPECT_TRUE(contains(plain, "/job/candidate.so"));
  EXPECT_FALSE(contains(plain, "-Xlinker"));  // no libraries asked for: no rpath
  EXPECT_TRUE(contains(plain, "-Xptxas") && contains(plain, "-v"));  // ptxas's report for the compiler facts

  auto tuned = t->command({"-O2", "--use_fast_math"}, "sm_80");
  EXPECT_TRUE(contains(tuned, "-O2"));
  EXPECT_FALSE(contains(tuned, "-O3"));  // the candidate's level replaces the default
  EXPECT_TRUE(contains(tuned, "--gpu-architecture=sm_80"));

  auto blas = t->command({"-lcublas"}, "sm_90a");
  EXPECT_TRUE(contains(blas, "-lcublas"));
  EXPECT_TRUE(contains(blas, "-rpath=" + (t->toolkit_root() / "lib64").string()));
  EXPECT_TRUE(contains(blas, "--enable-new-dtags"));
}

// ---------------------------------------------------------------- compiler facts (ptxas -v)

// What nvcc 13.0 printed here for two kernels with -Xptxas -v (the frame line is indented, not
// prefixed with "ptxas" as in NVRTC's log), between the host compiler's lines.
constexpr const char* k_nvcc_ptxas_log =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z3bigP6float4i' for 'sm_90a'\n"
    "ptxas info    : Function properties for _Z3bigP6float4i\n"
    "    256 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 1 barriers, 256 bytes cumulative stack size, 1024 bytes smem\n"
    "ptxas info    : Compile time = 1726.854 ms\n"
    "candidate.cu(3): warning #177-D: variable \"unused\" was declared but never referenced\n"
    "ptxas info    : Compiling entry function '_Z5scalePfi' for 'sm_90a'\n"
    "ptxas info    : Function properties for _Z5scalePfi\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 8 registers, used 0 barriers\n";

TEST(NvccToolchain, PtxasReportGivesLauncherFactsPerKernel) {
  std::string report = ptxas_report_lines(k_nvcc_ptxas_log);
  EXPECT_EQ(report.find("warning"), std::string::npos);  // only ptxas's lines are kept
  auto f = launcher_facts("sm_90a", report);
  EXPECT_EQ(f.config, "default");
  EXPECT_EQ(f.arch, "sm_90a");
  EXPECT_EQ(f.source, "nvcc -Xptxas -v");
  ASSERT_EQ(f.kernels.size(), 2u);
  const auto& big = f.kernels[0];
  EXPECT_EQ(big.kernel, "_Z3bigP6float4i");
  EXPECT_EQ(big.registers, 32);
  EXPECT_EQ(big.barriers, 1);
  EXPECT_EQ(big.stack_frame_bytes, 256);
  EXPECT_EQ(big.spill_store_bytes, 8);
  EXPECT_EQ(big.spill_load_bytes, 4);
  EXPECT_EQ(big.static_smem_bytes, 1024);
  EXPECT_EQ(big.max_threads_per_block, 1024);  // 32 registers do not limit a block
  EXPECT_TRUE(big.occupancy.empty());          // the host code picks the launch shape
  EXPECT_EQ(f.kernels[1].kernel, "_Z5scalePfi");
  EXPECT_EQ(f.kernels[1].registers, 8);
  EXPECT_TRUE(launcher_facts("sm_90a", "").kernels.empty());
}

// ---------------------------------------------------------------- flags

TEST(LauncherFlags, AllowedFlagsPass) {
  std::vector<std::string> ok = {"-O0", "-O3", "-DTILE=64", "-DUSE_X", "-DEXPR=(1+2)*3", "-DNEG=-1", "-UNDEBUG",
                                 "-Wno-deprecated-gpu-targets", "-Werror=all-warnings", "--use_fast_math",
                                 "-lineinfo", "-lcublas", "-lcublasLt", "--extra-device-vectorization",
                                 "-maxrregcount=64"};
  auto r = check_launcher_flags(ok);
  EXPECT_TRUE(r.has_value()) << r.error().what();
  EXPECT_TRUE(check_launcher_flags({}).has_value());
}

TEST(LauncherFlags, ForbiddenFlagsAreRefusedNamingTheFlagAndIndex) {
  const std::vector<std::string> bad = {
      "-Xlinker", "-Xcompiler", "-Xptxas", "-I/etc", "-isystem/etc", "-include/etc/passwd", "-lfoo", "-l",
      "-L/tmp", "--compiler-bindir=/tmp", "-ccbin", "-Wl,-rpath,/tmp", "-Wa,--foo", "-Wp,-I/etc", "-o",
      "-odir", "--output-file=/tmp/x", "--keep", "-keep-dir=/tmp", "--options-file=/etc/x", "-optf", "-x",
      "--dryrun", "-v", "-O", "-O4", "-Ofast-compile=max", "-Ofc", "-maxrregcount=", "-maxrregcount=a",
      "-D", "-D1X", "-DX=$(touch /tmp/p)", "-DX=`id`", "-DX=a\"b", "-DX=a\\b", "-DX=a b", "-DX=a;b",
      "-U", "-UX=1", "-W", "-W$(id)", "--library=foo", "-lcublas_static", "-fPIC", "-G", "--resource-usage",
      "-use_fast_math;id", "--use_fast_math "};
  for (const auto& f : bad) {
    auto r = check_launcher_flags({"-O2", f});
    ASSERT_FALSE(r.has_value()) << "accepted " << f;
    EXPECT_EQ(r.error().where, "flags[1]") << f;
    EXPECT_NE(r.error().message.find("'" + f + "'"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("not allowed"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("allowed: "), std::string::npos) << r.error().message;
  }
}

TEST(LauncherFlags, ControlCharactersAreRefused) {
  auto r = check_launcher_flags({"-DX=1\nKwb-Device: forged"});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().where, "flags[0]");
  EXPECT_NE(r.error().message.find("control character"), std::string::npos);
}

TEST(LauncherFlags, LibrariesAreTheCublasFlagsOnce) {
  EXPECT_EQ(launcher_libraries({"-O2", "-lcublas", "-lcublasLt", "-lcublas"}),
            (std::vector<std::string>{"-lcublas", "-lcublasLt"}));
  EXPECT_TRUE(launcher_libraries({"-O2", "-DX=1"}).empty());
}

// ---------------------------------------------------------------- diagnostics

TEST(NvccDiagnostics, FrontEndErrorsGetTheDisplayNameLineAndCaretColumn) {
  const std::string source = "__global__ void k(float* a) {\n\tint x = ;\n  a[0] = 1\n}\n";
  const std::string log =
      "/job/candidate.cu(2): error: expected an expression\n"
      "   int x = ;\n"
      "           ^\n"
      "\n"
      "/job/candidate.cu(4): error: expected a \";\"\n"
      "  }\n"
      "  ^\n"
      "\n"
      "2 errors detected in the compilation of \"/job/candidate.cu\".\n";
  auto d = parse_nvcc_diagnostics(log, "candidate.cu", "my_launcher.cu", source);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].file, "my_launcher.cu");
  EXPECT_EQ(d[0].line, 2);
  EXPECT_EQ(d[0].col, 10);  // byte column of ';' in "\tint x = ;"
  EXPECT_EQ(d[0].severity, "error");
  EXPECT_EQ(d[0].message, "expected an expression");
  EXPECT_EQ(d[1].line, 4);
  EXPECT_EQ(d[1].col, 1);
  EXPECT_EQ(d[1].message, "expected a \";\"");
}

TEST(NvccDiagnostics, CaretOnAMacroExpandedLineGivesNoColumn) {
  const std::string source = "__global__ void k(float* a) { int y; }\n";
  const std::string log =
      "/job/candidate.cu(1): warning #177-D: variable \"y\" was declared but never referenced\n"
      "  __attribute__((global)) void k(float* a) { int y; }\n"
      "                                                 ^\n"
      "\n"
      "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n"
      "\n"
      "/job/candidate.cu(1): warning #177-D: variable \"y\" was declared but never referenced\n"
      "  __attribute__((global)) void k(float* a) { int y; }\n"
      "                                                 ^\n";
  auto d = parse_nvcc_diagnostics(log, "candidate.cu", "k.cu", source);
  ASSERT_EQ(d.size(), 1u);  // the host and device passes' copies are one diagnostic
  EXPECT_EQ(d[0].file, "k.cu");
  EXPECT_EQ(d[0].line, 1);
  EXPECT_EQ(d[0].col, 0);
  EXPECT_EQ(d[0].severity, "warning");
  EXPECT_EQ(d[0].message, "variable \"y\" was declared but never referenced");
}

TEST(NvccDiagnostics, HostCompilerToolAndLinkerMessages) {
  const std::string log =
      "/job/candidate.cu:1:10: fatal error: /etc/passwd: No such file or directory\n"
      "    1 | #include \"/etc/passwd\"\n"
      "compilation terminated.\n"
      "/job/candidate.cu(3): catastrophic error: cannot open source file \"x.h\"\n"
      "/usr/local/cuda/include/foo.h(7): warning #1-D: header thing\n"
      "ptxas /tmp/tmpxft_0000_p.compute_90.ptx, line 23; error   : Unknown modifier '.instr'\n"
      "ptxas fatal   : Ptx assembly aborted due to errors\n"
      "nvcc fatal   : Unknown option '-Wfoo'\n"
      "/usr/bin/ld: cannot find -lfoo: No such file or directory\n";
  auto d = parse_nvcc_diagnostics(log, "candidate.cu", "user.cu");
  ASSERT_EQ(d.size(), 7u);
  EXPECT_EQ(d[0].file, "user.cu");
  EXPECT_EQ(d[0].line, 1);
  EXPECT_EQ(d[0].col, 10);
  EXPECT_EQ(d[0].severity, "error");
  EXPECT_EQ(d[1].file, "user.cu");
  EXPECT_EQ(d[1].line, 3);
  EXPECT_EQ(d[1].severity, "error");
  EXPECT_EQ(d[2].file, "/usr/local/cuda/include/foo.h");  // other files keep their names
  EXPECT_EQ(d[2].severity, "warning");
  EXPECT_EQ(d[3].file, "user.cu");
  EXPECT_EQ(d[3].line, 0);
  EXPECT_EQ(d[3].message, "ptxas: Unknown modifier '.instr'");
  EXPECT_EQ(d[4].message, "ptxas: Ptx assembly aborted due to errors");
  EXPECT_EQ(d[5].message, "nvcc: Unknown option '-Wfoo'");
  EXPECT_EQ(d[6].message, "ld: cannot find -lfoo: No such file or directory");
  EXPECT_EQ(d[6].severity, "error");
}

}  // namespace
}  // namespace kwb::build
