// kwb export (kwb::package::write_package, docs/export.md): a package exported from the seed
// library builds with cmake, ninja and g++ alone, its example program checks every function on the
// CPU against the op's trusted reference, and find_package(kwb) works after install. The CUDA
// path is compiled when nvcc is present (it runs only on a machine with a GPU).
// Kernels of an x86-64 level: test_export_x86_levels.cpp.
#include <gtest/gtest.h>

#include <set>

#include "export_support.hpp"

namespace {

using namespace kwb::test;
namespace fs = std::filesystem;

void expect_installed_package_links(const fs::path& build, const fs::path& work) {
  const fs::path prefix = work / "prefix", app = work / "app";
  auto install = sh("cmake --install " + shell_quote(build.string()) + " --prefix " + shell_quote(prefix.string()));
  ASSERT_EQ(install.exit_code, 0) << install.out;
  ASSERT_TRUE(kwb::util::write_file_atomic(app / "CMakeLists.txt", R"(cmake_minimum_required(VERSION 3.25)
project(app LANGUAGES CXX)
find_package(kwb REQUIRED)
add_executable(app main.cpp)
target_link_libraries(app PRIVATE kwb::kernels)
)"));
  ASSERT_TRUE(kwb::util::write_file_atomic(app / "main.cpp", R"(#include <kwb/kernels.hpp>
#include <cstdio>
#include <cstring>
int main() {
  float a[3] = {1, 2, 3}, b[3] = {10, 20, 30}, c[3] = {0, 0, 0};
  if (kwb::vector_add_f32(a, b, c, 3) != kwb::ok || c[2] != 33.0f) return 1;
  float y[1];
  if (kwb::softmax_f32(a, y, 0, 1) != kwb::invalid_argument) return 2;
  std::printf("%s\n", kwb::last_error());
  if (kwb::vector_add_f32(a, b, c, 3) != kwb::ok || std::strlen(kwb::last_error()) != 0) return 3;
  return 0;
}
)"));
  auto built = sh("cmake -S " + shell_quote(app.string()) + " -B " + shell_quote((app / "build").string()) +
                  " -G Ninja -DCMAKE_PREFIX_PATH=" + shell_quote(prefix.string()) + " && cmake --build " +
                  shell_quote((app / "build").string()));
  ASSERT_EQ(built.exit_code, 0) << built.out;
  auto run = sh(shell_quote((app / "build/app").string()));
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("kwb::softmax_f32: tensor 'x': dimension 0 (rows) is 0; dimensions must be >= 1"), std::string::npos) << run.out;
}

// One test, so that ctest (one process per test) builds the package once.
TEST(ExportPackage, SeedLibraryBuildsWithCmakeAndEveryFunctionPassesOnTheCpu) {
  TempDir dir;
  const auto report = export_seed(dir);
  size_t variants = 0;
  for (const auto& op : catalog().ops()) variants += catalog().find(op)->variants.size();
  // Every variant is exported, the model ops' too (scalars, bounds written as expressions, ...:
  // docs/export.md "Model ops").
  for (const auto& s : report.skipped) EXPECT_EQ(s.find("does not export yet"), std::string::npos) << s;
  ASSERT_EQ(report.variants.size(), variants);
  for (const auto& v : report.variants) {
    EXPECT_FALSE(v.cpu_kernel.empty()) << v.function;
    ASSERT_FALSE(v.cuda_kernel.empty()) << v.function;
    auto plan = kwb::spec::parse_launch_plan(read_text(report.out_dir / "kernels" / v.cuda_kernel), v.cuda_kernel);
    ASSERT_TRUE(plan) << plan.error().what();
    // Without tunables: one config. With them: one per distinct recorded value (3 bench workloads).
    size_t expected = 1;
    for (const auto& t : plan->tunables) expected = std::max(expected, std::min<size_t>(t.values.size(), 3));
    EXPECT_EQ(v.cuda_configs, expected) << v.function;
  }
  for (const char* f : {"CMakeLists.txt", "README.md", "include/kwb/kernels.hpp", "cmake/kwbConfig.cmake.in",
                        "example/main.cpp", "reference/softmax.cpp", "kernels/softmax/cpu/three_pass.cpp",
                        "cuda/softmax_f32_cfg0.cu", "src/softmax_f32.cpp", "kwb-package.json", "dispatch.json"})
    EXPECT_TRUE(fs::is_regular_file(report.out_dir / f)) << f;

  const std::string h = read_text(report.out_dir / "include/kwb/kernels.hpp");
  EXPECT_NE(h.find("int softmax_f32(const float* x, float* y, int64_t rows, int64_t cols, void* stream = nullptr);"), std::string::npos) << h;
  EXPECT_NE(h.find("int gemm_bf16(const uint16_t* a, const uint16_t* b, float* c, int64_t m, int64_t n, int64_t k, void* stream = nullptr);"),
            std::string::npos) << h;
  EXPECT_NE(h.find("int histogram_u8(const uint8_t* x, uint32_t* bins, int64_t n, void* stream = nullptr);"), std::string::npos) << h;

  const std::string failure = build_package(report.out_dir, dir / "build", "-DCMAKE_BUILD_TYPE=Release", "package (CPU)");
  ASSERT_TRUE(failure.empty()) << failure;
  const auto run = run_example(dir / "build/kwb_example", "cpu");
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_TRUE(run.failed.empty()) << run.out;
  for (const auto& v : report.variants) {
    ASSERT_TRUE(run.passed.contains(v.function)) << v.function << " has no PASS line:\n" << run.out;
    const auto& spec = *catalog().find(v.op);
    EXPECT_EQ(size_t(run.passed.at(v.function)), spec.test_workloads.size()) << v.function << ": every test workload runs";
  }
  expect_installed_package_links(dir / "build", dir.path());
}

// With nvcc: the CUDA part compiles (one TU per config) and links; without a GPU the example's
// CUDA lines are SKIP, with one they must PASS (tested on an H200: docs/export.md).
TEST(ExportPackage, CudaBuildCompilesWhereNvccIs) {
  if (sh("command -v nvcc || test -x /usr/local/cuda/bin/nvcc").exit_code != 0) GTEST_SKIP() << "no nvcc";
  TempDir dir;
  const auto report = export_seed(dir);
  const std::string failure = build_package(report.out_dir, dir / "build", "-DKWB_WITH_CUDA=ON", "package (CUDA)");
  ASSERT_TRUE(failure.empty()) << failure;
  const auto run = run_example(dir / "build/kwb_example", "cpu");
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_TRUE(run.failed.empty()) << run.out;
  EXPECT_EQ(run.passed.size(), report.variants.size()) << run.out;
  for (const auto& v : report.variants)
    EXPECT_TRUE(run.out.find("PASS " + v.function + " cuda") != std::string::npos ||
                run.out.find("SKIP " + v.function + " cuda: no CUDA device") != std::string::npos)
        << run.out;
}

// The example's check can fail: a CPU kernel off by one in one element of larger inputs.
TEST(Export, ExampleReportsAWrongKernel) {
  TempDir dir;
  auto lib = seed_library(dir / "library", [](auto& files) {
    std::string& k = files["vector_add/cpu/vectorized.cpp"];
    const std::string loop = "pc[i] = pa[i] + pb[i];";
    ASSERT_NE(k.find(loop), std::string::npos) << k;
    k.replace(k.find(loop), loop.size(), "pc[i] = pa[i] + pb[i] + (i == 100 ? 1.0f : 0.0f);");
  });
  auto req = request(lib, dir / "pkg");
  req.ops = {"vector_add"};
  req.backends = {"cpu"};
  auto report = kwb::package::write_package(req);
  ASSERT_TRUE(report) << report.error().what();
  const std::string failure = build_package(report->out_dir, dir / "build", "", "one-op package (CPU)");
  ASSERT_TRUE(failure.empty()) << failure;
  const auto run = run_example(dir / "build/kwb_example", "cpu");
  EXPECT_EQ(run.exit_code, 1) << run.out;
  ASSERT_EQ(run.failed.size(), 1u) << run.out;
  EXPECT_TRUE(run.failed[0].starts_with("FAIL vector_add_f32 cpu: ")) << run.failed[0];
  EXPECT_NE(run.failed[0].find("c[100] = "), std::string::npos) << run.failed[0];
  EXPECT_NE(run.failed[0].find("(atol 2.4e-38 rtol 1e-06; 1 of "), std::string::npos) << run.failed[0];
}

// A vector_add written with AVX2 intrinsics (no target attribute): it compiles only for a target
// with AVX2, as -march=native did where it was promoted.

TEST(Export, RecordedConfigsBecomeOneTranslationUnitEachAndANearestPick) {
  TempDir dir;
  auto lib = seed_library(dir / "library", [](auto& files) {
    set_configs(files, "softmax/cuda/block_row.cu",
                {{"attn_1024x1024", {{"rows", 1024}, {"cols", 1024}}, {{"BLOCK", 256}}, 41000.0},
                 {"vocab_64x32000", {{"rows", 64}, {"cols", 32000}}, {{"BLOCK", 1024}}, 52000.0},
                 {"attn_8192x8192", {{"rows", 8192}, {"cols", 8192}}, {{"BLOCK", 1024}}, 900000.0}});
  });
  auto req = request(lib, dir / "pkg");
  req.ops = {"softmax"};
  auto report = kwb::package::write_package(req);
  ASSERT_TRUE(report) << report.error().what();
  ASSERT_EQ(report->variants.size(), 1u);
  EXPECT_EQ(report->variants[0].cuda_configs, 2u);
  const std::string cfg1 = read_text(dir / "pkg/cuda/softmax_f32_cfg1.cu");
  EXPECT_NE(cfg1.find("#define BLOCK 1024\n#define softmax_f32 softmax_f32__softmax_f32_cfg1\n"
                      "namespace kwb_softmax_f32_cfg1 {\n#include \"../kernels/softmax/cuda/block_row.cu\"\n}"),
            std::string::npos) << cfg1;
  EXPECT_NE(cfg1.find("kwb_cuda_softmax_f32_cfg1[] = {(const void*)&kwb_softmax_f32_cfg1::softmax_f32__softmax_f32_cfg1}"),
            std::string::npos) << cfg1;
  const std::string src = read_text(dir / "pkg/src/softmax_f32.cpp");
  EXPECT_NE(src.find("k_pick_configs[] = {0, 1, 1}"), std::string::npos) << src;
  EXPECT_NE(src.find("rt::launch(\"softmax_f32\", \"softmax_f32\", kwb_cuda_softmax_f32_cfg1[0], {I(rows)}, {I(1024)}, "
                     "I(4LL) * I(cols) * (I(1LL) - rt::min(I(1LL), I(cols) / I(12289LL))), kwb_args, stream)"),
            std::string::npos) << src;
}

TEST(Export, MissingKernelFileIsAnErrorNamingTheEntry) {
  TempDir dir;
  auto lib = seed_library(dir / "library");
  fs::remove(lib / "rmsnorm/cpu/lanes.cpp");
  auto report = kwb::package::write_package(request(lib, dir / "pkg"));
  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().what(),
            "dispatch.json: rmsnorm/f32/cpu/any: kernel 'rmsnorm/cpu/lanes.cpp': no such file in the library (" + lib.string() + ")");
  EXPECT_FALSE(fs::exists(dir / "pkg")) << "a failed export writes nothing";
}

TEST(Export, ConfigOutsideTheTuneListIsAnError) {
  TempDir dir;
  auto lib = seed_library(dir / "library", [](auto& files) {
    set_configs(files, "vector_add/cuda/vectorized.cu", {{"big", {{"n", 1000}}, {{"BLOCK", 384}}, std::nullopt}});
  });
  auto report = kwb::package::write_package(request(lib, dir / "pkg"));
  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().what(), "dispatch.json: vector_add/f32/cuda/any: configs[0].tune.BLOCK: 384 is not one of the values of its kwb:tune line (256, 512)");
}

TEST(Export, RefusesAFolderThatIsNotAPreviousExport) {
  TempDir dir;
  auto lib = seed_library(dir / "library");
  ASSERT_TRUE(kwb::util::write_file_atomic(dir / "pkg/notes.txt", "mine"));
  auto req = request(lib, dir / "pkg");
  req.backends = {"cpu"};
  auto report = kwb::package::write_package(req);
  ASSERT_FALSE(report);
  EXPECT_NE(report.error().what().find("is not empty"), std::string::npos) << report.error().what();
  fs::remove(dir / "pkg/notes.txt");
  ASSERT_TRUE(kwb::package::write_package(req));
  EXPECT_FALSE(fs::exists(dir / "pkg/cuda")) << "a cpu-only export has no CUDA translation units";
  EXPECT_FALSE(kwb::package::write_package(req)) << "a previous export is replaced only when asked";
  req.replace = true;
  EXPECT_TRUE(kwb::package::write_package(req));
}

TEST(Export, ExpressionsBecomeCheckedCxx) {
  auto e = kwb::package::cxx_expr("max(1, min(ceil_div(n, 16 * BLOCK), 132 * 8)) - -n % 007", {{"n", "n"}, {"BLOCK", "256"}});
  ASSERT_TRUE(e) << e.error().what();
  EXPECT_EQ(*e, "rt::max(I(1LL), rt::min(rt::ceil_div(I(n), I(16LL) * I(256)), I(132LL) * I(8LL))) - -I(n) % I(7LL)");
  auto bad = kwb::package::cxx_expr("rows * colz", {{"rows", "rows"}});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().what(), "\"rows * colz\": unknown name 'colz'");
}

}  // namespace
