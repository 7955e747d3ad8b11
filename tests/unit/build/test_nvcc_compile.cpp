// The nvcc toolchain's real compiles of cuda-launcher candidates inside the sandbox: a small
// launcher, syntax errors, host files out of sight, refused flags, a bad arch, cuBLAS and CUB,
// and the compile cache. The built objects are only read as files (nm -D, readelf -d): untrusted
// code never runs outside the sandbox.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "build/compiler_facts.hpp"
#include "build/nvcc_toolchain.hpp"
#include "temp_dir.hpp"

namespace kwb::build {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

bool nvcc_installed() { return fs::exists("/usr/local/cuda/bin/nvcc") || fs::exists("/usr/bin/nvcc"); }

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
