// kwb export of CPU kernels of an x86-64 level (docs/export.md): an AVX2 kernel builds for a
// baseline target and runs only on an AVX2 CPU, with the "any" kernel as its fallback; without
// one the package says so below its level; a legacy CPU class is read as the level asked for.
#include <gtest/gtest.h>

#include "export_support.hpp"

namespace {

using namespace kwb::test;
namespace fs = std::filesystem;

const char* k_avx2_vector_add = R"(#include <cstdint>
#include <immintrin.h>
extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(c + i, _mm256_add_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i)));
  for (; i < n; ++i) c[i] = a[i] + b[i];
}
)";

// The seed library plus that kernel promoted on an AVX2 machine (cpu-x86_64-v3), with the seed's
// own vector_add (the baseline, "any") made wrong in one element: which kernel a call ran shows.
fs::path avx2_library(const fs::path& dir, bool with_baseline = true) {
  return seed_library(dir, [&](auto& files) {
    files["vector_add/cpu/avx2.cpp"] = k_avx2_vector_add;
    files["vector_add/cpu/avx2.json"] = R"({"op": "vector_add", "variant": "f32", "backend": "cpu", "entry": "kwb_vector_add_f32", "flags": ["-funroll-loops", "-march=native"]})";
    std::string& seed = files["vector_add/cpu/vectorized.cpp"];
    const std::string loop = "pc[i] = pa[i] + pb[i];";
    ASSERT_NE(seed.find(loop), std::string::npos) << seed;
    seed.replace(seed.find(loop), loop.size(), "pc[i] = pa[i] + pb[i] + (i == 100 ? 1.0f : 0.0f);");
    auto d = kwb::library::parse_dispatch(files["dispatch.json"]);
    ASSERT_TRUE(d) << d.error().what();
    if (!with_baseline)
      std::erase_if(d->entries, [](auto& e) { return e.op == "vector_add" && e.backend == "cpu"; });
    d->upsert({"vector_add", "f32", "cpu", "cpu-x86_64-v3", "vector_add/cpu/avx2.cpp", "kwb_vector_add_f32", "c-0123456789abcdef", 1, {}});
    files["dispatch.json"] = kwb::library::dispatch_text(*d);
  });
}

// Issue 17 point 9: the package builds for a baseline x86-64 target (-DKWB_NATIVE=OFF, and the
// compiler told -march=x86-64), its test passes, the AVX2 kernel runs on an AVX2 CPU and the
// baseline kernel below it; `--replace` keeps the package's build/ folder.
TEST(Export, AnAvx2KernelBuildsForABaselineTargetAndRunsOnlyOnAnAvx2Cpu) {
  if (kwb::library::host_x86_level() < 3) GTEST_SKIP() << "needs an x86-64 CPU with AVX2 (level 3) to run the kernel";
  TempDir dir;
  const fs::path lib = avx2_library(dir / "library");
  // The kernel needs AVX2: for the baseline target it does not compile (what -DKWB_NATIVE=OFF hit).
  auto baseline_compile = sh("g++ -O3 -march=x86-64 -c -o /dev/null " + shell_quote((lib / "vector_add/cpu/avx2.cpp").string()));
  ASSERT_NE(baseline_compile.exit_code, 0) << baseline_compile.out;
  EXPECT_NE(baseline_compile.out.find("target specific option mismatch"), std::string::npos) << baseline_compile.out;

  auto req = request(lib, dir / "pkg");
  req.ops = {"vector_add"};
  req.backends = {"cpu"};
  req.cpu_device_class = "cpu-x86_64-v3";
  auto report = kwb::package::write_package(req);
  ASSERT_TRUE(report) << report.error().what();
  ASSERT_EQ(report->variants.size(), 1u);
  EXPECT_EQ(report->variants[0].cpu_kernel, "vector_add/cpu/avx2.cpp");
  const std::string cmake = read_text(dir / "pkg/CMakeLists.txt");
  EXPECT_NE(cmake.find("kwb_cpu_kernel(cpu/vector_add_f32.cpp 3 [=[-funroll-loops]=])  # vector_add/cpu/avx2.cpp"),
            std::string::npos) << cmake;
  EXPECT_NE(cmake.find("kwb_cpu_kernel(cpu/vector_add_f32_baseline.cpp 0)  # vector_add/cpu/vectorized.cpp"),
            std::string::npos) << cmake;
  const std::string unit = read_text(dir / "pkg/cpu/vector_add_f32.cpp");
  EXPECT_NE(unit.find("#define kwb_vector_add_f32 kwb_vector_add_f32__vector_add_f32\nnamespace kwb_cpu_vector_add_f32 {\n"
                      "#include \"../kernels/vector_add/cpu/avx2.cpp\"\n}"),
            std::string::npos) << unit;
  const std::string src = read_text(dir / "pkg/src/vector_add_f32.cpp");
  EXPECT_NE(src.find("if (rt::cpu_level() >= 3) {\n    kwb_vector_add_f32__vector_add_f32(a, b, c, n);"), std::string::npos) << src;
  EXPECT_NE(src.find("kwb_vector_add_f32__vector_add_f32_baseline(a, b, c, n);  // the baseline kernel"), std::string::npos) << src;
  const auto manifest = nlohmann::json::parse(read_text(dir / "pkg/kwb-package.json"));
  EXPECT_EQ(manifest["functions"][0]["cpu"]["x86_level"], 3) << manifest.dump(2);
  EXPECT_EQ(manifest["functions"][0]["cpu_baseline"]["device_class"], "any") << manifest.dump(2);

  // Built in the package's own build/ folder, as its README says, for the baseline target.
  const fs::path build = dir / "pkg/build";
  const std::string options = "-DKWB_NATIVE=OFF -DCMAKE_CXX_FLAGS=-march=x86-64 -DCMAKE_EXPORT_COMPILE_COMMANDS=ON";
  std::string failure = build_package(dir / "pkg", build, options, "AVX2 package (KWB_NATIVE=OFF)");
  ASSERT_TRUE(failure.empty()) << failure;
  const std::string commands = read_text(build / "compile_commands.json");
  EXPECT_NE(commands.find("-march=x86-64-v3"), std::string::npos) << commands;
  EXPECT_EQ(commands.find("-march=native"), std::string::npos) << commands;
  auto ctest = sh("ctest --test-dir " + shell_quote(build.string()) + " --output-on-failure");
  EXPECT_EQ(ctest.exit_code, 0) << ctest.out;
  auto run = run_example(build / "kwb_example", "cpu");
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_EQ(run.passed.count("vector_add_f32"), 1u) << "the AVX2 kernel ran:\n" << run.out;
  // Below level 3 the call takes the baseline kernel (here the one wrong at c[100]).
  for (const char* level : {"2", "1"}) {
    auto below = sh(std::string("KWB_CPU_LEVEL=") + level + " " + shell_quote((build / "kwb_example").string()));
    EXPECT_EQ(below.exit_code, 1) << below.out;
    EXPECT_NE(below.out.find("FAIL vector_add_f32 cpu: "), std::string::npos) << below.out;
    EXPECT_NE(below.out.find("c[100] = "), std::string::npos) << below.out;
  }

  // Exported again with replace: build/ (and anything else of the user's) stays, and builds again.
  ASSERT_TRUE(kwb::util::write_file_atomic(dir / "pkg/notes.md", "mine\n"));
  ASSERT_TRUE(kwb::util::write_file_atomic(dir / "pkg/src/stale.cpp", "generated folder\n"));
  EXPECT_FALSE(kwb::package::write_package(req)) << "a previous export is replaced only when asked";
  req.replace = true;
  auto again = kwb::package::write_package(req);
  ASSERT_TRUE(again) << again.error().what();
  EXPECT_TRUE(fs::is_regular_file(build / "CMakeCache.txt"));
  EXPECT_TRUE(fs::is_regular_file(build / "kwb_example"));
  EXPECT_EQ(read_text(dir / "pkg/notes.md"), "mine\n");
  EXPECT_FALSE(fs::exists(dir / "pkg/src/stale.cpp")) << "what an export writes is replaced whole";
  auto rebuilt = sh("cmake --build " + shell_quote(build.string()) + " && ctest --test-dir " + shell_quote(build.string()));
  EXPECT_EQ(rebuilt.exit_code, 0) << rebuilt.out;
}

// Without a baseline kernel, a call below the level is no_kernel, naming the kernel and level.
TEST(Export, AnX86LevelKernelWithoutABaselineSaysSoBelowItsLevel) {
  TempDir dir;
  auto req = request(avx2_library(dir / "library", /*with_baseline=*/false), dir / "pkg");
  req.ops = {"vector_add"};
  req.backends = {"cpu"};
  req.cpu_device_class = "cpu-x86_64-v3";
  auto report = kwb::package::write_package(req);
  ASSERT_TRUE(report) << report.error().what();
  EXPECT_FALSE(fs::exists(dir / "pkg/cpu/vector_add_f32_baseline.cpp"));
  const std::string src = read_text(dir / "pkg/src/vector_add_f32.cpp");
  EXPECT_NE(src.find("kwb::vector_add_f32: the CPU kernel vector_add/cpu/avx2.cpp was compiled for x86-64-v3 (device "
                     "class cpu-x86_64-v3), which this CPU is not (level \" + std::to_string(rt::cpu_level()) + \"), and "
                     "the package has no baseline CPU kernel (device class any) for vector_add/f32"),
            std::string::npos) << src;
}

// A legacy cpu-x86_64 entry (promoted before classes carried the level) is exported as a kernel of
// the level asked for; the legacy class itself is refused as an export's class.
TEST(Export, ALegacyCpuClassIsReadAsTheLevelAskedFor) {
  TempDir dir;
  auto lib = seed_library(dir / "library", [](auto& files) {
    files["vector_add/cpu/avx2.cpp"] = k_avx2_vector_add;
    auto d = kwb::library::parse_dispatch(files["dispatch.json"]);
    ASSERT_TRUE(d);
    d->upsert({"vector_add", "f32", "cpu", "cpu-x86_64", "vector_add/cpu/avx2.cpp", "kwb_vector_add_f32", "", 0, {}});
    files["dispatch.json"] = kwb::library::dispatch_text(*d);
  });
  auto req = request(lib, dir / "pkg");
  req.ops = {"vector_add"};
  req.backends = {"cpu"};
  req.cpu_device_class = "cpu-x86_64";
  auto refused = kwb::package::write_package(req);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().what().find("cpu_device_class: 'cpu-x86_64' names no ISA level"), std::string::npos)
      << refused.error().what();
  req.cpu_device_class = "cpu-x86_64-v3";
  auto report = kwb::package::write_package(req);
  ASSERT_TRUE(report) << report.error().what();
  EXPECT_EQ(report->variants[0].cpu_kernel, "vector_add/cpu/avx2.cpp");
  EXPECT_NE(read_text(dir / "pkg/CMakeLists.txt").find("kwb_cpu_kernel(cpu/vector_add_f32.cpp 3)"), std::string::npos);
  EXPECT_TRUE(fs::exists(dir / "pkg/cpu/vector_add_f32_baseline.cpp"));
}

}  // namespace
