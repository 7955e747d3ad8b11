// The whole CUDA path (device discovery, calibration, kwb-gpu-runner in the GPU sandbox, arena
// mirroring, guards, poison, timing loop, error tags) against a fake CUDA driver that emulates a
// few kernels on the host (fake_driver/fake_libcuda.cpp, loaded through KWB_CUDA_DRIVER). Real
// NVRTC compiles the sources; only the execution is emulated. Runs on machines without a GPU.
// Static analysis is off (KWB_LIBCLANG=off): these tests are about the runner's own checks, which
// must hold for code the analyzer misses (test_cuda_analysis.cpp covers the analyzer's verdicts).
#include <gtest/gtest.h>

#include <fstream>

#include "../../gpu/cuda_test_support.hpp"
#include "temp_dir.hpp"

#ifndef KWB_TEST_FAKE_LIBCUDA
#define KWB_TEST_FAKE_LIBCUDA ""  // no CUDA toolkit at build time: the tests skip
#endif

namespace {

using namespace kwb::cudatest;

// specs/ with vector_add only, its bench workloads shrunk to sizes a CPU emulates quickly.
class FakeGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(KWB_TEST_FAKE_LIBCUDA).empty()) GTEST_SKIP() << "built without the CUDA toolkit";
  }
  static void SetUpTestSuite() {
    s_dir = new kwb::test::TempDir();
    std::string spec = read_text(source_dir() / "specs/vector_add/spec.json");
    size_t b = spec.find("\"bench\": [");
    size_t e = spec.find("\n    ]", b);
    ASSERT_NE(b, std::string::npos);
    ASSERT_NE(e, std::string::npos);
    spec = spec.substr(0, b) + "\"bench\": [\n      {\"name\": \"n4k\", \"params\": {\"n\": 4096}, \"label\": \"small\"}" +
           spec.substr(e);
    std::filesystem::create_directories(s_dir->path() / "specs/vector_add");
    std::ofstream(s_dir->path() / "specs/vector_add/spec.json") << spec;
    std::filesystem::copy_file(source_dir() / "specs/vector_add/reference.cpp",
                               s_dir->path() / "specs/vector_add/reference.cpp");  // a spec folder has both
  }
  static void TearDownTestSuite() { delete s_dir; }

  EvalResult eval(const std::string& source_text, const std::string& extra = "") {
    static int counter = 0;
    auto file = s_dir->path() / ("case" + std::to_string(counter++) + ".cu");
    std::ofstream(file) << source_text;
    return eval_file(file.string(), extra);
  }
  EvalResult eval_file(const std::string& file, const std::string& extra = "",
                       const std::string& driver = KWB_TEST_FAKE_LIBCUDA) {
    std::string cmd = "KWB_LIBCLANG=off KWB_CUDA_DRIVER=" + shell_quote(driver) + " " +
                      (bin_dir() / "kwb").string() + " eval " + shell_quote(file) +
                      " --op vector_add --json --time-budget-ms 30 " + extra +
                      " --specs-dir " + shell_quote((s_dir->path() / "specs").string()) + " --workspace " +
                      shell_quote((s_dir->path() / "ws").string());
    return run_for_verdict(cmd);
  }
  static std::string kernel(const std::string& name, const std::string& args = "a, b, c, n") {
    return "// kwb:launch " + name + " grid=(ceil_div(n, 256)) block=(256) args=(" + args +
           ")\nextern \"C\" __global__ void " + name + "(const float* a, const float* b, float* c, long long n) {}\n";
  }
  void expect(const EvalResult& r, const std::string& status, const std::string& reason) {
    ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
    EXPECT_EQ(r.verdict["status"], status) << r.verdict["reason"];
    EXPECT_NE(r.verdict["reason"].get<std::string>().find(reason), std::string::npos) << r.verdict["reason"];
    EXPECT_EQ(r.exit_code, status == "accepted" ? 0 : 1);
  }

  static kwb::test::TempDir* s_dir;
};
kwb::test::TempDir* FakeGpu::s_dir = nullptr;

TEST_F(FakeGpu, ShippedVectorAddIsAcceptedWithTimesPerConfig) {
  auto r = eval_file((source_dir() / "kernels/vector_add/cuda/vectorized.cu").string());
  expect(r, "accepted", "correct on 9 test, 3 drawn and 1 bench workloads");
  EXPECT_NE(r.verdict["device"].get<std::string>().find("Fake GPU"), std::string::npos) << r.verdict["device"];
  const auto& w = r.verdict["workloads"].back();
  EXPECT_EQ(w["name"], "n4k");
  ASSERT_TRUE(w["time"].is_object()) << w.dump();
  EXPECT_EQ(w["time"]["clock"], "cuda_event");
  EXPECT_GT(w["time"]["median_ns"].get<double>(), 0);
  EXPECT_TRUE(w["params"].contains("BLOCK")) << "the best config is reported: " << w["params"].dump();
  // Its two configs were timed round-robin and one chosen (docs/cuda.md "Choosing a config"):
  // every config listed with its interval against the winner, whose values are in the params.
  ASSERT_TRUE(w["config_times"].is_array()) << w.dump();
  ASSERT_EQ(w["config_times"].size(), 2u) << w["config_times"].dump();
  int winners = 0;
  for (const auto& c : w["config_times"]) {
    EXPECT_LE(c["low"].get<double>(), c["high"].get<double>()) << c.dump();
    if (c["label"] == "winner") {
      ++winners;
      EXPECT_EQ(c["config"], "BLOCK=" + std::to_string(w["params"]["BLOCK"].get<int64_t>())) << w.dump();
    } else {
      EXPECT_TRUE(c["label"] == "slower" || c["label"] == "tie") << c.dump();
    }
  }
  EXPECT_EQ(winners, 1);
  EXPECT_TRUE(w["roofline"]["pct_bw"].is_number());
  EXPECT_TRUE(w["roofline"]["pct_bw_sheet"].is_null()) << "no data sheet for the fake model: " << w["roofline"];
  // 9 test workloads x 3 distributions x 2 runs x 2 configs, as checks of input sets.
  EXPECT_GE(r.verdict["workloads"][0]["checks"].get<int>(), 2 * 3 * 2);
  // The 3 drawn test workloads went through every config as the published ones did.
  int drawn = 0;
  for (const auto& x : r.verdict["workloads"]) {
    if (!x["drawn"].get<bool>()) continue;
    ++drawn;
    EXPECT_EQ(x["kind"], "test");
    EXPECT_EQ(x["checks"], r.verdict["workloads"][0]["checks"]) << x["name"];
    EXPECT_TRUE(x["correct"].get<bool>()) << x["name"];
  }
  EXPECT_EQ(drawn, 3);
}

TEST_F(FakeGpu, KernelTunedToThePublishedShapesIsIncorrectOnADrawnOne) {
  auto r = eval(kernel("published_n"));
  expect(r, "incorrect", "wrong on 3 of 12 test workloads; workload drawn:n=");
  for (const auto& x : r.verdict["workloads"])
    EXPECT_EQ(x["correct"].get<bool>(), !x["drawn"].get<bool>()) << x["name"];
}

TEST_F(FakeGpu, LaunchPlanIsCheckedOnDrawnShapesBeforeAnythingCompiles) {
  // A grid that is empty past the largest published n (65537): valid for every published
  // workload, rejected for a drawn one (seed 5 draws n = 140865 first, from the top of the range).
  auto r = eval("// kwb:launch vadd grid=(ceil_div(n, 256) * (1 - min(1, max(0, n - 65537)))) block=(256) "
                "args=(a, b, c, n)\nextern \"C\" __global__ void vadd(const float* a, const float* b, float* c, "
                "long long n) {}\n",
                "--seed 5");
  expect(r, "rejected", "is 0 for workload drawn:n=140865; every dimension must be at least 1");
  EXPECT_FALSE(r.verdict["summary"]["stage_ms"].contains("compile")) << r.verdict["summary"];
}

TEST_F(FakeGpu, CompareTimesTheIncumbentInterleavedInItsOwnGpuSession) {
  // A copy of the shipped kernel against the library's incumbent (the shipped kernel): both
  // sessions open at once, timed in alternating blocks; never promotable against itself.
  auto copy = s_dir->path() / "vectorized_copy.cu";
  std::ofstream(copy) << read_text(source_dir() / "kernels/vector_add/cuda/vectorized.cu") << "\n// a copy\n";
  auto r = eval_file(copy.string(), "--compare --no-baseline --decide-budget-ms 300");
  expect(r, "accepted", "the incumbent vector_add/cuda/vectorized.cu");
  const auto& w = r.verdict["workloads"].back();
  ASSERT_TRUE(w["comparison"].is_object()) << r.verdict["reason"];
  const auto& c = w["comparison"];
  EXPECT_GE(c["blocks"].get<int>(), 9) << "the stopping rule's first look (eval/sequential_interval.hpp)";
  EXPECT_LE(c["low"].get<double>(), c["ratio"].get<double>());
  EXPECT_LE(c["ratio"].get<double>(), c["high"].get<double>());
  EXPECT_TRUE(c["label"] == "same" || c["label"] == "undecided" || c["label"] == "faster" || c["label"] == "slower");
  ASSERT_TRUE(r.verdict["summary"]["decision"].is_object());
  // The fake driver runs the kernel on the host's CPU, in two runner processes: there, one
  // kernel reads up to 3.3 % apart between processes (docs/library.md, cpu_min_gain_pct), more
  // than the GPU policy's 3 % win margin made for real GPUs (a 1.034x "win" was seen under a
  // full ctest -j2). So this checks the pairing and the interval, not the GPU margin: the ratio
  // of a kernel against itself stays within the CPU's 5 %. (On the H200 the same comparison is
  // the same decision in 10 of 10 runs, docs/benchmarks/h200.md.)
  EXPECT_NEAR(c["ratio"].get<double>(), 1.0, 0.05) << r.verdict["reason"];
  EXPECT_TRUE(r.verdict["summary"]["stage_ms"]["decide"].is_number());
  // The same code compiled the same way: its resources beside the incumbent's, and no loss
  // (docs/verdict.md "Resources").
  const auto& res = r.verdict["summary"]["resources"];
  ASSERT_TRUE(res.is_object()) << r.verdict["summary"].dump();
  ASSERT_FALSE(res["rows"].empty());
  EXPECT_EQ(res["rows"][0]["candidate"]["registers"], res["rows"][0]["incumbent"]["registers"]) << res.dump();
  EXPECT_TRUE(res["losses"].empty()) << res.dump();
}

TEST_F(FakeGpu, RooflineAgainstTheDataSheetForAKnownModel) {
  auto dir = s_dir->path() / "h200";  // the fake driver plays the model its folder names
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(KWB_TEST_FAKE_LIBCUDA, dir / "libcuda.so.1",
                             std::filesystem::copy_options::overwrite_existing);
  std::ofstream(dir / "fake_gpu_name") << "NVIDIA H200\n";
  auto r = eval_file((source_dir() / "kernels/vector_add/cuda/vectorized.cu").string(), "",
                     (dir / "libcuda.so.1").string());
  expect(r, "accepted", "correct on");
  const auto& w = r.verdict["workloads"].back();
  ASSERT_TRUE(w["roofline"]["pct_bw_sheet"].is_number()) << w["roofline"];
  const double seconds = w["time"]["median_ns"].get<double>() * 1e-9;
  EXPECT_NEAR(w["roofline"]["pct_bw_sheet"].get<double>(), w["roofline"]["bytes"].get<double>() / seconds / 4.8e12 * 100,
              1e-9 * w["roofline"]["pct_bw_sheet"].get<double>());
  EXPECT_NEAR(w["roofline"]["pct_flops_sheet"].get<double>(), w["roofline"]["flops"].get<double>() / seconds / 67e12 * 100,
              1e-9 * w["roofline"]["pct_flops_sheet"].get<double>());
}

TEST_F(FakeGpu, CuptiClockFallsBackToEventsWithANoteWhereCuptiCannotRecord) {
  // The fake driver is no driver CUPTI can hook: the opt-in clock must degrade, not fail.
  auto r = eval_file((source_dir() / "kernels/vector_add/cuda/vectorized.cu").string(), "--gpu-clock cupti");
  expect(r, "accepted", "correct on 9 test, 3 drawn and 1 bench workloads");
  EXPECT_EQ(r.verdict["workloads"].back()["time"]["clock"], "cuda_event");
  bool noted = false;
  for (const auto& d : r.verdict["diagnostics"])
    if (d["rule"] == "clock" && d["message"].get<std::string>().find("timed with CUDA events") != std::string::npos)
      noted = true;
  EXPECT_TRUE(noted) << r.verdict["diagnostics"].dump();
  EXPECT_EQ(r.verdict["device"].get<std::string>().find("[clock: cupti]"), std::string::npos);
}

TEST_F(FakeGpu, WriteBeyondTheOutputHitsTheDeviceGuard) {
  expect(eval(kernel("overrun")), "incorrect", "past the end of output c");
}

TEST_F(FakeGpu, InputMutationIsSeenAndLocated) {
  // Inputs are checked by checksum; the original is generated again from its seed to say where.
  expect(eval(kernel("mutate")), "incorrect", "input a was modified by the kernel (first change at [0])");
}

TEST_F(FakeGpu, StaleOutputIsPoison) { expect(eval(kernel("stale")), "incorrect", "never written"); }

TEST_F(FakeGpu, DeviceFaultIsACrashNamedByCuda) {
  expect(eval(kernel("fault")), "crashed", "CUDA_ERROR_ILLEGAL_ADDRESS");
}

TEST_F(FakeGpu, HangIsATimeLimit) {
  expect(eval(kernel("hang"), "--run-timeout-ms 1500"), "time_limit", "did not finish within 1500 ms");
}

TEST_F(FakeGpu, ImpossiblyFastIsRejectedByThePhysicsFloor) {
  expect(eval(kernel("too_fast")), "rejected", "workload n4k: median 1 ns is physically impossible: reading 32768 bytes");
}

TEST_F(FakeGpu, KernelNotInTheModuleIsRejected) {
  expect(eval(kernel("not_emulated")), "rejected", "kernel 'not_emulated' not found in the compiled module");
}

TEST_F(FakeGpu, ParameterCountMustMatchThePlan) {
  expect(eval(kernel("vadd", "a, b, c")), "rejected", "takes 4 parameters but its kwb:launch line passes 3");
}

// A kernel whose PTX sets L2 eviction policies ("l2keep" in the fake driver keeps its data in L2
// unless persisting lines are reset before each launch) is timed with a reset before every
// sample and says so; without the PTX instruction the same kernel is timed in queued batches,
// reads 1 ns and is rejected by the physics floor.
TEST_F(FakeGpu, KernelSettingL2PoliciesIsResetBeforeEverySample) {
  const std::string plan = "// kwb:launch l2keep grid=(ceil_div(n, 256)) block=(256) args=(a, b, c, n)\n";
  const std::string body = "extern \"C\" __global__ void l2keep(const float* a, const float* b, float* c, long long n) {";
  auto hinted = eval(plan + body +
                     "\n  unsigned long long p;\n  asm volatile(\"createpolicy.fractional.L2::evict_last.b64 %0, 1.0;\" "
                     ": \"=l\"(p));\n}\n");
  expect(hinted, "accepted", "correct on");
  bool noted = false;
  for (const auto& d : hinted.verdict["diagnostics"])
    if (d["rule"] == "l2-cache-policy") {
      noted = true;
      EXPECT_NE(d["message"].get<std::string>().find("evict_last"), std::string::npos) << d;
    }
  EXPECT_TRUE(noted) << hinted.verdict["diagnostics"];
  auto plain = eval(plan + body + "}\n");
  expect(plain, "rejected", "is physically impossible");
  for (const auto& d : plain.verdict["diagnostics"]) EXPECT_NE(d["rule"], "l2-cache-policy") << d;
}

TEST_F(FakeGpu, CalibrationIsStoredOnce) {
  auto r = eval(kernel("vadd"));
  expect(r, "accepted", "correct on");
  EXPECT_TRUE(std::filesystem::exists(s_dir->path() / "ws/kwb.db"));
}

}  // namespace

// A space larger than the grid is searched on the device (docs/tuning.md): configs compiled in
// batches, raced against the best, the finalists validated and chosen as a grid's configs are.
TEST_F(FakeGpu, ASpaceLargerThanTheGridIsSearched) {
  std::string src = read_text(source_dir() / "kernels/vector_add/cuda/vectorized.cu");
  const std::string grid = "// kwb:tune BLOCK=256,512";
  ASSERT_NE(src.find(grid), std::string::npos);
  src.replace(src.find(grid), grid.size(), "// kwb:tune BLOCK=range(32,1024,32) UNROLL=1..3\n// kwb:constraint BLOCK * UNROLL <= 2048");
  auto r = eval(src);
  expect(r, "accepted", "correct on");
  const nlohmann::json* note = nullptr;
  for (const auto& d : r.verdict["diagnostics"])
    if (d["rule"] == "config-search") note = &d;
  ASSERT_NE(note, nullptr) << r.verdict["diagnostics"].dump();
  const std::string text = (*note)["message"];
  EXPECT_NE(text.find("config search over a space of 85 on workload n4k"), std::string::npos) << text;
  EXPECT_NE(text.find("stopped: "), std::string::npos) << text;
  EXPECT_NE(text.find("tried: "), std::string::npos) << text;
  EXPECT_EQ((*note)["line"], 2);
  // At most a fifth of the space evaluated (the default budget, at least 16), at most 5 finalists
  // went on (the 4 best estimated and the best).
  const size_t tried = size_t(std::count(text.begin(), text.end(), ';'));
  EXPECT_LE(tried, 2 + 85 / 5) << text;
  const auto& w = r.verdict["workloads"].back();
  ASSERT_TRUE(w["config_times"].is_array()) << w.dump();
  EXPECT_GE(w["config_times"].size(), 1u);
  EXPECT_LE(w["config_times"].size(), 5u) << w["config_times"].dump();
  EXPECT_TRUE(w["params"].contains("BLOCK")) << w["params"].dump();
  EXPECT_LE(r.verdict["compiler_facts"].size(), 5u);
}

TEST_F(FakeGpu, TheSearchBudgetIsTheCallers) {
  std::string src = read_text(source_dir() / "kernels/vector_add/cuda/vectorized.cu");
  const std::string grid = "// kwb:tune BLOCK=256,512";
  ASSERT_NE(src.find(grid), std::string::npos);
  src.replace(src.find(grid), grid.size(), "// kwb:tune BLOCK=range(32,1024,32) UNROLL=1..3\n// kwb:constraint BLOCK * UNROLL <= 2048");
  // On the fake every config times alike, so the default search runs to its budget (17 of 85);
  // 6 stops it at 6 (plus at most the rest of a batch of compiles).
  auto r = eval(src, "--search-budget 6");
  expect(r, "accepted", "correct on");
  const nlohmann::json* note = nullptr;
  for (const auto& d : r.verdict["diagnostics"])
    if (d["rule"] == "config-search") note = &d;
  ASSERT_NE(note, nullptr) << r.verdict["diagnostics"].dump();
  const std::string text = (*note)["message"];
  const size_t tried = size_t(std::count(text.begin(), text.end(), ';'));
  EXPECT_LE(tried, 2 + 6 + 2) << text;
}
