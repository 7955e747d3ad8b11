// The nvcc toolchain for cuda-launcher candidates: detection, the command line, the flag check,
// nvcc's diagnostics, and real compiles inside the sandbox. The built objects are only read as
// files (nm -D, readelf -d): untrusted code never runs outside the sandbox.
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

// Output of a binutils tool run on a file: it parses the ELF, it does not execute it.
std::string tool_output(const std::string& tool, const fs::path& file) {
  std::string cmd = tool + " '" + file.string() + "' 2>&1";
  std::string out;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[512];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    ::pclose(p);
  }
  return out;
}

// True when `nm -D --defined-only` lists `symbol` as a defined text symbol.
bool exports_function(const fs::path& so, const std::string& symbol) {
  std::string out = tool_output("nm -D --defined-only", so);
  size_t pos = 0;
  while (pos < out.size()) {
    size_t end = out.find('\n', pos);
    if (end == std::string::npos) end = out.size();
    std::string line = out.substr(pos, end - pos);
    pos = end + 1;
    if (line.ends_with(" T " + symbol)) return true;
  }
  return false;
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

// ---------------------------------------------------------------- compiles in the sandbox

constexpr const char* k_small_launcher = R"(#include <cstdint>
#include <cuda_runtime.h>

__global__ void add_one(const float* x, float* y, int64_t n) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = x[i] + 1.0f;
}

extern "C" void kwb_test_add_one(const float* x, float* y, int64_t n, cudaStream_t stream) {
  unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  add_one<<<blocks, 256, 0, stream>>>(x, y, n);
}
)";

class NvccCompile : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists("/usr/bin/bwrap")) GTEST_SKIP() << "bubblewrap not installed";
    if (!nvcc_installed()) GTEST_SKIP() << "no nvcc installed";
    auto t = NvccToolchain::detect();
    ASSERT_TRUE(t.has_value()) << t.error().what();
    m_toolchain.emplace(std::move(*t));
  }
  CompileRequest request(std::string source, std::vector<std::string> flags = {}) {
    CompileRequest req;
    req.source = std::move(source);
    req.display_name = "my_launcher.cu";
    req.job_dir = m_job.path();
    req.extra_flags = std::move(flags);
    req.timeout_ms = NvccToolchain::k_default_timeout_ms;
    return req;
  }
  static void report_time(const char* what, const CompileResult& r) {
    std::cout << "[ nvcc     ] " << what << ": " << r.wall_ms << " ms\n";
  }

  TempDir m_job;
  std::optional<NvccToolchain> m_toolchain;
};

TEST_F(NvccCompile, SmallLauncherBuildsASharedObjectExportingTheEntry) {
  auto r = m_toolchain->compile(request(k_small_launcher), "sm_90a");
  ASSERT_TRUE(r.has_value()) << r.error().what();
  ASSERT_TRUE(r->ok) << r->reason << "\n" << r->log;
  report_time("small kernel", *r);
  EXPECT_FALSE(r->timed_out);
  EXPECT_FALSE(r->cache_hit);
  EXPECT_EQ(r->object_inside, "/job/candidate.so");
  ASSERT_TRUE(fs::is_regular_file(m_job / "candidate.so"));
  EXPECT_TRUE(fs::is_regular_file(m_job / "candidate.cu"));
  EXPECT_TRUE(exports_function(m_job / "candidate.so", "kwb_test_add_one"))
      << tool_output("nm -D --defined-only", m_job / "candidate.so");
  EXPECT_FALSE(exports_function(m_job / "candidate.so", "kwb_no_such_entry"));
  // ptxas's report of the real compile gives the kernel's facts.
  auto facts = launcher_facts("sm_90a", r->ptxas_report);
  ASSERT_EQ(facts.kernels.size(), 1u) << r->log;
  EXPECT_EQ(facts.kernels[0].kernel, "_Z7add_onePKfPfl");
  EXPECT_GT(facts.kernels[0].registers, 0);
  EXPECT_LT(facts.kernels[0].registers, 64);
  EXPECT_EQ(facts.kernels[0].spill_store_bytes, 0);
  // No cuBLAS asked for: no rpath.
  EXPECT_EQ(tool_output("readelf -d", m_job / "candidate.so").find("RUNPATH"), std::string::npos);
}

TEST_F(NvccCompile, SyntaxErrorGivesDiagnosticsWithTheDisplayNameAndLine) {
  const std::string source = "#include <cuda_runtime.h>\n__global__ void k(float* y) {\n  y[0] = ;\n}\n"
                             "extern \"C\" void kwb_e(float* y, cudaStream_t s) { k<<<1, 1, 0, s>>>(y); }\n";
  auto r = m_toolchain->compile(request(source), "sm_90a");
  ASSERT_TRUE(r.has_value()) << r.error().what();
  EXPECT_FALSE(r->ok);
  EXPECT_FALSE(r->timed_out);
  EXPECT_FALSE(fs::exists(m_job / "candidate.so"));
  auto it = std::find_if(r->diagnostics.begin(), r->diagnostics.end(),
                         [](const core::Diagnostic& d) { return d.severity == "error"; });
  ASSERT_NE(it, r->diagnostics.end()) << r->log;
  EXPECT_EQ(it->file, "my_launcher.cu");
  EXPECT_EQ(it->line, 3);
  EXPECT_EQ(it->col, 10);
  EXPECT_TRUE(r->reason.starts_with("my_launcher.cu:3:10: ")) << r->reason;
  EXPECT_EQ(r->reason.find("/job/"), std::string::npos) << r->reason;
}

TEST_F(NvccCompile, HostFilesAreNotVisible) {
  auto r = m_toolchain->compile(request("#include \"/etc/passwd\"\n"), "sm_90a");
  ASSERT_TRUE(r.has_value()) << r.error().what();
  EXPECT_FALSE(r->ok);
  EXPECT_EQ(r->log.find("root:"), std::string::npos) << r->log;
  auto it = std::find_if(r->diagnostics.begin(), r->diagnostics.end(),
                         [](const core::Diagnostic& d) { return d.severity == "error"; });
  ASSERT_NE(it, r->diagnostics.end()) << r->log;
  EXPECT_EQ(it->file, "my_launcher.cu");
  EXPECT_EQ(it->line, 1);
  EXPECT_NE(r->reason.find("/etc/passwd"), std::string::npos) << r->reason;
}

TEST_F(NvccCompile, ForbiddenFlagIsRefusedBeforeCompiling) {
  for (const std::string flag : {"-Xlinker", "-I/etc", "-lfoo", "--compiler-bindir=/tmp"}) {
    auto r = m_toolchain->compile(request(k_small_launcher, {"-O2", flag}), "sm_90a");
    ASSERT_TRUE(r.has_value()) << r.error().what();
    EXPECT_FALSE(r->ok) << flag;
    EXPECT_NE(r->reason.find("flags[1]"), std::string::npos) << r->reason;
    EXPECT_NE(r->reason.find("'" + flag + "'"), std::string::npos) << r->reason;
    ASSERT_EQ(r->diagnostics.size(), 1u);
    EXPECT_EQ(r->diagnostics[0].file, "my_launcher.cu");
    EXPECT_EQ(r->diagnostics[0].severity, "error");
    EXPECT_FALSE(fs::exists(m_job / "candidate.cu"));
    EXPECT_FALSE(fs::exists(m_job / "candidate.so"));
  }
}

TEST_F(NvccCompile, BadArchIsAnErrorOfTheCaller) {
  auto r = m_toolchain->compile(request(k_small_launcher), "sm_90a -Xlinker");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().where, "arch");
}

TEST_F(NvccCompile, CublasLinksWithARunpathToTheToolkit) {
  const std::string source = R"(#include <cstdint>
#include <cublas_v2.h>

extern "C" void kwb_test_blas(const float* x, float* y, int64_t n, cudaStream_t stream) {
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return;
  cublasSetStream(handle, stream);
  const float alpha = 2.0f;
  cublasSaxpy(handle, static_cast<int>(n), &alpha, x, 1, y, 1);
  cublasDestroy(handle);
}
)";
  auto r = m_toolchain->compile(request(source, {"-lcublas"}), "sm_90a");
  ASSERT_TRUE(r.has_value()) << r.error().what();
  ASSERT_TRUE(r->ok) << r->reason << "\n" << r->log;
  report_time("cuBLAS file", *r);
  EXPECT_TRUE(exports_function(m_job / "candidate.so", "kwb_test_blas"));
  const std::string dynamic = tool_output("readelf -d", m_job / "candidate.so");
  EXPECT_NE(dynamic.find("(NEEDED)             Shared library: [libcublas.so"), std::string::npos) << dynamic;
  EXPECT_NE(dynamic.find("(RUNPATH)            Library runpath: [" + (m_toolchain->toolkit_root() / "lib64").string() + "]"),
            std::string::npos)
      << dynamic;
}

TEST_F(NvccCompile, CubCompiles) {
  const std::string source = R"(#include <cstdint>
#include <cub/cub.cuh>

extern "C" void kwb_test_scan(const int* x, int* y, int64_t n, cudaStream_t stream) {
  size_t bytes = 0;
  cub::DeviceScan::InclusiveSum(nullptr, bytes, x, y, static_cast<int>(n), stream);
  void* scratch = nullptr;
  cudaMallocAsync(&scratch, bytes, stream);
  cub::DeviceScan::InclusiveSum(scratch, bytes, x, y, static_cast<int>(n), stream);
  cudaFreeAsync(scratch, stream);
}
)";
  auto r = m_toolchain->compile(request(source), "sm_90a");
  ASSERT_TRUE(r.has_value()) << r.error().what();
  ASSERT_TRUE(r->ok) << r->reason << "\n" << r->log;
  report_time("CUB file", *r);
  EXPECT_TRUE(exports_function(m_job / "candidate.so", "kwb_test_scan"));
}

TEST_F(NvccCompile, SecondIdenticalCompileIsACacheHit) {
  TempDir cache;
  auto req = request(k_small_launcher, {"-DUNUSED=1"});
  req.cache_dir = cache.path();
  auto first = m_toolchain->compile(req, "sm_90a");
  ASSERT_TRUE(first.has_value()) << first.error().what();
  ASSERT_TRUE(first->ok) << first->reason << "\n" << first->log;
  EXPECT_FALSE(first->cache_hit);
  ASSERT_FALSE(first->cache_key.empty());
  const auto size = fs::file_size(m_job / "candidate.so");

  TempDir job2;
  req.job_dir = job2.path();
  auto second = m_toolchain->compile(req, "sm_90a");
  ASSERT_TRUE(second.has_value()) << second.error().what();
  ASSERT_TRUE(second->ok) << second->reason;
  EXPECT_TRUE(second->cache_hit);
  EXPECT_EQ(second->cache_key, first->cache_key);
  EXPECT_EQ(second->object_inside, "/job/candidate.so");
  EXPECT_EQ(fs::file_size(job2 / "candidate.so"), size);
  EXPECT_TRUE(exports_function(job2 / "candidate.so", "kwb_test_add_one"));
  EXPECT_EQ(second->ptxas_report, first->ptxas_report);  // the facts survive a cache hit
  EXPECT_NE(second->ptxas_report.find("_Z7add_onePKfPfl"), std::string::npos) << second->ptxas_report;

  // Another architecture, flag or source is another key.
  req.job_dir = m_job.path();
  auto other_arch = m_toolchain->compile(req, "sm_80");
  ASSERT_TRUE(other_arch.has_value()) << other_arch.error().what();
  EXPECT_FALSE(other_arch->cache_hit);
  EXPECT_NE(other_arch->cache_key, first->cache_key);
}

}  // namespace
}  // namespace kwb::build
