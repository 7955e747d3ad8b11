// kwb export (kwb::package::write_package, docs/export.md): a package exported from the seed
// library builds with cmake, ninja and g++ alone, its example program checks every function on the
// CPU against the op's trusted reference, and find_package(kwb) works after install. The CUDA
// path is compiled when nvcc is present (it runs only on a machine with a GPU).
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "../unit/common/temp_dir.hpp"
#include "library/device_class.hpp"
#include "library/dispatch.hpp"
#include "library/seed.hpp"
#include "package/cxx.hpp"
#include "package/export.hpp"
#include "spec/launch_plan.hpp"
#include "spec/loader.hpp"
#include "support.hpp"
#include "util/fs.hpp"

namespace {

using namespace kwb::test;
namespace fs = std::filesystem;

const kwb::spec::Catalog& catalog() {
  static const auto c = kwb::spec::Catalog::load(source_dir() / "specs");
  if (!c) throw std::runtime_error(c.error().what());
  return *c;
}

// The seed library (kernels/ + its dispatch.json) written out as a library tree; `edit` may
// change the files first.
fs::path seed_library(const fs::path& dir, const std::function<void(std::map<std::string, std::string>&)>& edit = {}) {
  auto files = kwb::library::seed_files(source_dir() / "kernels");
  if (!files) throw std::runtime_error(files.error().what());
  if (edit) edit(*files);
  for (const auto& [path, text] : *files)
    if (auto w = kwb::util::write_file_atomic(dir / path, text); !w) throw std::runtime_error(w.error().what());
  return dir;
}

// Replaces the recorded configs of the dispatch entry of `kernel`.
void set_configs(std::map<std::string, std::string>& files, const std::string& kernel,
                 std::vector<kwb::library::DispatchConfig> configs) {
  auto d = kwb::library::parse_dispatch(files["dispatch.json"]);
  if (!d) throw std::runtime_error(d.error().what());
  for (auto& e : d->entries)
    if (e.kernel == kernel) e.configs = configs;
  files["dispatch.json"] = kwb::library::dispatch_text(*d);
}

kwb::package::ExportRequest request(const fs::path& library, const fs::path& out) {
  kwb::package::ExportRequest r;
  r.library_dir = library;
  r.catalog = &catalog();
  r.specs_dir = source_dir() / "specs";
  r.out_dir = out;
  return r;
}

CommandResult sh(const std::string& cmd) { return run_command(cmd + " 2>&1"); }

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Records configs for every CUDA kernel with tunables, as promotion would: the spec's bench
// workloads in order take the values of each kwb:tune list in turn.
void record_configs(std::map<std::string, std::string>& files) {
  auto d = kwb::library::parse_dispatch(files["dispatch.json"]);
  if (!d) throw std::runtime_error(d.error().what());
  for (auto& e : d->entries) {
    if (e.backend != "cuda") continue;
    auto plan = kwb::spec::parse_launch_plan(files[e.kernel], e.kernel);
    if (!plan) throw std::runtime_error(plan.error().what());
    if (plan->tunables.empty()) continue;
    const auto& bench = catalog().find(e.op)->bench_workloads;
    for (size_t i = 0; i < bench.size(); ++i) {
      kwb::library::DispatchConfig c{bench[i].name, bench[i].params, {}, 1000.0 * double(i + 1)};
      for (const auto& t : plan->tunables) c.tune[t.name] = t.values[i % t.values.size()];
      e.configs.push_back(std::move(c));
    }
  }
  files["dispatch.json"] = kwb::library::dispatch_text(*d);
}

// The seed library, with recorded configs, exported (cpu and cuda entries) into dir/pkg.
// KWB_TEST_EXPORT_KEEP=DIR keeps a copy in DIR/pkg (to build it on a GPU machine:
// `cmake -S DIR/pkg -B build -DKWB_WITH_CUDA=ON`).
kwb::package::ExportReport export_seed(const TempDir& dir) {
  auto report = kwb::package::write_package(request(seed_library(dir / "library", record_configs), dir / "pkg"));
  if (!report) throw std::runtime_error("export: " + report.error().what());
  if (const char* keep = std::getenv("KWB_TEST_EXPORT_KEEP"); keep && *keep) {
    std::error_code ec;
    fs::remove_all(fs::path(keep) / "pkg", ec);
    fs::create_directories(keep, ec);
    fs::copy(dir / "pkg", fs::path(keep) / "pkg", fs::copy_options::recursive, ec);
  }
  return *report;
}

// Configures and builds the package in `build`; "" or the failure with cmake's output.
std::string build_package(const fs::path& pkg, const fs::path& build, const std::string& options, const char* what) {
  const auto t0 = std::chrono::steady_clock::now();
  auto r = sh("PATH=$PATH:/usr/local/cuda/bin cmake -S " + shell_quote(pkg.string()) + " -B " + shell_quote(build.string()) +
              " -G Ninja " + options + " && cmake --build " + shell_quote(build.string()) + " -j2");
  std::cout << "[ export   ] " << what << " configure + build (-j2): " << seconds_since(t0) << " s\n";
  return r.exit_code == 0 ? "" : "package build failed:\n" + r.out;
}

// The example's lines: function -> workload count of each PASS line for `backend`; FAIL lines.
struct ExampleRun {
  int exit_code = -1;
  std::string out;
  std::map<std::string, int> passed;
  std::vector<std::string> failed;
};

ExampleRun run_example(const fs::path& exe, const std::string& backend) {
  ExampleRun e;
  auto r = sh(shell_quote(exe.string()));
  e.exit_code = r.exit_code, e.out = r.out;
  const std::regex pass("^PASS (\\w+) " + backend + ": (\\d+) workloads");
  std::istringstream in(r.out);
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (std::regex_search(l, m, pass)) e.passed[m[1]] = std::stoi(m[2]);
    if (l.starts_with("FAIL")) e.failed.push_back(l);
  }
  return e;
}

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
