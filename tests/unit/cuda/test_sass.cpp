// SASS of real NVRTC cubins (issue 19): the disassembler runs inside the sandbox on the cubin
// (never outside it), its output is cached by tool and cubin, and its failures are results.
// With the toolkit's nvdisasm/cuobjdump installed, the real tool's SASS gives the instruction mix;
// where none is installed (the development machines) that test skips, and a stand-in tool checks
// the sandboxed path: it reports the uid it ran as and the first bytes of the cubin it was given.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>

#include "../../gpu/cuda_test_support.hpp"
#include "build/disassembler.hpp"
#include "build/nvrtc_compiler.hpp"
#include "build/sass_mix.hpp"
#include "temp_dir.hpp"

namespace kwb::build {
namespace {

namespace fs = std::filesystem;

const char* k_sass_kernels = R"(
extern "C" __global__ void copy4(const float4* x, float4* y, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}
extern "C" __global__ void local_array(const float* x, float* y, int k) {
  float a[64];
  for (int j = 0; j < 64; ++j) a[j] = x[j * blockDim.x + threadIdx.x];
  y[threadIdx.x] = a[k & 63] + a[(k * 7) & 63];  // indexed at run time: the array lives in local memory
}
)";

std::string nvrtc_cubin(const fs::path& dir) {
  NvrtcOptions o;
  o.worker = cudatest::bin_dir() / "kwb-nvrtc-worker";
  o.scratch_parent = dir / "jobs";
  o.max_workers = 1;
  NvrtcCompiler compiler(o);
  auto r = compiler.compile_all({{k_sass_kernels, "sass.cu", {}, {}}});
  if (!r || r->size() != 1 || !(*r)[0].ok) return {};
  return (*r)[0].cubin;
}

void write_tool(const fs::path& path, const std::string& script) {
  std::ofstream(path) << script;
  ::chmod(path.c_str(), 0755);
}

TEST(Sass, RealDisassemblerGivesTheMixOfAnNvrtcCubin) {
  auto tool = find_disassembler();
  if (!tool) GTEST_SKIP() << tool.error().what();
  test::TempDir dir;
  std::string cubin = nvrtc_cubin(dir.path());
  ASSERT_FALSE(cubin.empty());
  auto r = disassemble(*tool, {cubin, dir.path(), "/usr/bin/bwrap", 60000, {}});
  ASSERT_TRUE(r) << r.error().what();
  ASSERT_TRUE(r->ok) << r->reason;
  auto mix = scan_sass(r->text);
  ASSERT_TRUE(mix.contains("copy4")) << r->text.substr(0, 2000);
  EXPECT_GE(mix.at("copy4").ldg_128, 1) << r->text;  // float4: LDG.E.128
  EXPECT_EQ(mix.at("copy4").ldg_32, 0);
  EXPECT_GE(mix.at("copy4").stg_128, 1);
  EXPECT_FALSE(mix.at("copy4").tensor_cores());
  ASSERT_TRUE(mix.contains("local_array"));
  EXPECT_GE(mix.at("local_array").ldl, 1) << r->text;  // the run-time-indexed array: LDL
}

TEST(Sass, TheToolRunsInTheSandboxOnTheCubinAndIsCached) {
  if (!fs::exists("/usr/bin/bwrap")) GTEST_SKIP() << "bubblewrap not installed";
  test::TempDir dir;
  std::string cubin = nvrtc_cubin(dir.path());
  ASSERT_EQ(cubin.substr(0, 4), std::string("\x7f" "ELF"));
  fs::create_directories(dir.path() / "tools");
  auto path = dir.path() / "tools" / "nvdisasm";
  write_tool(path,
             "#!/bin/sh\n"
             "if [ \"$1\" = --version ]; then echo 'Cuda compilation tools, release 13.0, V13.0.88'; exit 0; fi\n"
             "[ \"$1\" = -c ] || exit 3\n"
             "echo \"// uid $(id -u) magic $(head -c 4 \"$2\" | tail -c 3) file $2\"\n"
             "printf '\\t.section\\t.text.copy4,\"ax\",@progbits\\n        /*0000*/ LDG.E.128 R4, desc[UR4][R2.64] ;\\n'\n"
             "if cat /etc/shadow >/dev/null 2>&1; then echo READ-HOST-SHADOW; fi\n"
             "exit 0\n");
  auto tool = find_disassembler(path.string());
  ASSERT_TRUE(tool) << tool.error().what();
  EXPECT_EQ(tool->kind, "nvdisasm");
  EXPECT_EQ(tool->identity, "nvdisasm 13.0.88");
  SassRequest req{cubin, dir.path(), "/usr/bin/bwrap", 30000, dir.path() / "cache"};
  auto r = disassemble(*tool, req);
  ASSERT_TRUE(r) << r.error().what();
  ASSERT_TRUE(r->ok) << r->reason;
  EXPECT_FALSE(r->cache_hit);
  EXPECT_NE(r->text.find("uid 65534 magic ELF file /job/kernel.cubin"), std::string::npos) << r->text;
  EXPECT_EQ(r->text.find("READ-HOST-SHADOW"), std::string::npos);
  EXPECT_EQ(scan_sass(r->text).at("copy4").ldg_128, 1);
  // The job folder is gone; the same tool and cubin are a cache hit with the same text.
  for (const auto& e : fs::directory_iterator(dir.path())) EXPECT_FALSE(e.path().filename().string().starts_with("sass-"));
  auto again = disassemble(*tool, req);
  ASSERT_TRUE(again && again->ok);
  EXPECT_TRUE(again->cache_hit);
  EXPECT_EQ(again->text, r->text);
  req.cubin += "x";  // another cubin: another key
  auto other = disassemble(*tool, req);
  ASSERT_TRUE(other && other->ok);
  EXPECT_FALSE(other->cache_hit);
}

TEST(Sass, AFailingOrHangingToolIsAResult) {
  if (!fs::exists("/usr/bin/bwrap")) GTEST_SKIP() << "bubblewrap not installed";
  test::TempDir dir;
  fs::create_directories(dir.path() / "tools");
  auto bad = dir.path() / "tools" / "cuobjdump";
  write_tool(bad, "#!/bin/sh\n[ \"$1\" = --version ] && exit 0\n[ \"$1\" = --dump-sass ] || exit 9\n"
                  "echo 'cuobjdump fatal   : Could not open input file' >&2\nexit 1\n");
  auto tool = find_disassembler(bad.string());
  ASSERT_TRUE(tool) << tool.error().what();
  EXPECT_EQ(tool->kind, "cuobjdump");
  EXPECT_EQ(tool->identity, "cuobjdump (version unknown)");
  auto r = disassemble(*tool, {"not a cubin", dir.path(), "/usr/bin/bwrap", 30000, {}});
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_FALSE(r->ok);
  EXPECT_NE(r->reason.find("cuobjdump failed (exit 1): cuobjdump fatal   : Could not open input file"),
            std::string::npos) << r->reason;

  auto slow = dir.path() / "tools" / "nvdisasm";
  write_tool(slow, "#!/bin/sh\n[ \"$1\" = --version ] && exit 0\nexec sleep 600\n");
  auto hanging = find_disassembler(slow.string());
  ASSERT_TRUE(hanging);
  auto h = disassemble(*hanging, {"x", dir.path(), "/usr/bin/bwrap", 1000, {}});
  ASSERT_TRUE(h) << h.error().what();
  EXPECT_FALSE(h->ok);
  EXPECT_NE(h->reason.find("did not finish within 1000 ms"), std::string::npos) << h->reason;
}

TEST(Sass, MissingToolsAreClearErrors) {
  test::TempDir dir;
  auto none = find_disassembler("", dir.path());
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("neither nvdisasm nor cuobjdump under " + (dir.path() / "bin").string()),
            std::string::npos) << none.error().message;
  auto off = find_disassembler("off");
  ASSERT_FALSE(off);
  EXPECT_NE(off.error().message.find("turned off"), std::string::npos);
  auto relative = find_disassembler("nvdisasm");
  ASSERT_FALSE(relative);
  EXPECT_NE(relative.error().message.find("not an absolute path"), std::string::npos);
}

}  // namespace
}  // namespace kwb::build
