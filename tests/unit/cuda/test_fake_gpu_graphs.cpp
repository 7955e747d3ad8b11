// CUDA graphs (issue 38 point 3, docs/cuda.md "CUDA graphs") on the fake driver, whose graphs
// record kernel launches at capture and run them again at replay (fake_driver/fake_graph.cpp):
// every CUDA candidate's plan is captured and replayed in validation, the replay's outputs
// verified against the trusted reference; a launch that does nothing on replay, or a capture
// without a kernel, is refused; a launch-bound bench workload gets a row timed by graph replay.
#include <gtest/gtest.h>

#include <fstream>

#include "../../gpu/cuda_test_support.hpp"
#include "temp_dir.hpp"

#ifndef KWB_TEST_FAKE_LIBCUDA
#define KWB_TEST_FAKE_LIBCUDA ""  // no CUDA toolkit at build time: the tests skip
#endif

namespace {

using namespace kwb::cudatest;

// A launcher that reaches the driver the runner loaded (RTLD_NOLOAD: the fake, by its soname) and
// asks whether its stream is being captured, as host code can with cudaStreamIsCapturing; what it
// launches then is CAPTURED_KERNEL (none where empty), and "vadd" otherwise.
std::string launcher(const std::string& captured_kernel) {
  return R"(#include <cuda.h>
#include <dlfcn.h>
#include <cstdint>
#include <cuda_runtime.h>

template <class F>
F driver(const char* name) {
  static void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  return lib ? reinterpret_cast<F>(dlsym(lib, name)) : nullptr;
}

extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n, cudaStream_t stream) {
  auto capturing = driver<decltype(&cuStreamIsCapturing)>("cuStreamIsCapturing");
  auto get_fn = driver<decltype(&cuModuleGetFunction)>("cuModuleGetFunction");
  auto launch = driver<decltype(&cuLaunchKernel)>("cuLaunchKernel");
  if (!capturing || !get_fn || !launch) return;
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  capturing(reinterpret_cast<CUstream>(stream), &status);
  const char* name = status == CU_STREAM_CAPTURE_STATUS_ACTIVE ? ")" +
         captured_kernel + R"(" : "vadd";
  if (!*name) return;
  CUfunction f = nullptr;
  if (get_fn(&f, nullptr, name) != CUDA_SUCCESS) return;
  CUdeviceptr pa = CUdeviceptr(a), pb = CUdeviceptr(b), pc = CUdeviceptr(c);
  long long count = n;
  void* args[] = {&pa, &pb, &pc, &count};
  launch(f, 1, 1, 1, 256, 1, 1, 0, reinterpret_cast<CUstream>(stream), args, nullptr);
}
)";
}

class FakeGpuGraphs : public ::testing::Test {
 protected:
  // specs/ with vector_add only, its bench workloads shrunk to one small (launch-bound) size.
  void SetUp() override {
    if (std::string(KWB_TEST_FAKE_LIBCUDA).empty()) GTEST_SKIP() << "built without the CUDA toolkit";
    std::string spec = read_text(source_dir() / "specs/vector_add/spec.json");
    size_t b = spec.find("\"bench\": [");
    size_t e = spec.find("\n    ]", b);
    ASSERT_NE(b, std::string::npos);
    ASSERT_NE(e, std::string::npos);
    spec = spec.substr(0, b) + "\"bench\": [\n      {\"name\": \"n4k\", \"params\": {\"n\": 4096}}" + spec.substr(e);
    std::filesystem::create_directories(m_dir.path() / "specs/vector_add");
    std::ofstream(m_dir.path() / "specs/vector_add/spec.json") << spec;
    std::filesystem::copy_file(source_dir() / "specs/vector_add/reference.cpp",
                               m_dir.path() / "specs/vector_add/reference.cpp");
  }
  EvalResult eval(const std::filesystem::path& source, const std::string& backend = "cuda") {
    return run_for_verdict("KWB_LIBCLANG=off KWB_CUDA_DRIVER=" + shell_quote(KWB_TEST_FAKE_LIBCUDA) + " " +
                           (bin_dir() / "kwb").string() + " eval " + shell_quote(source.string()) +
                           " --op vector_add --backend " + backend + " --json --time-budget-ms 30 --specs-dir " +
                           shell_quote((m_dir.path() / "specs").string()) + " --workspace " +
                           shell_quote((m_dir.path() / "ws").string()));
  }
  std::filesystem::path write(const std::string& name, const std::string& text) {
    auto path = m_dir.path() / name;
    std::ofstream(path) << text;
    return path;
  }
  static std::string reason(const EvalResult& r) { return r.verdict.value("reason", std::string()); }
  kwb::test::TempDir m_dir;
};

TEST_F(FakeGpuGraphs, ShippedVectorAddGetsARowTimedByGraphReplay) {
  auto r = eval(source_dir() / "kernels/vector_add/cuda/vectorized.cu");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  ASSERT_EQ(r.verdict["status"], "accepted") << reason(r);
  const auto& w = r.verdict["workloads"].back();
  ASSERT_EQ(w["name"], "n4k");
  ASSERT_TRUE(w["time"].is_object()) << w.dump();
  ASSERT_LT(w["time"]["median_ns"].get<double>(), 50'000) << "n4k is launch-bound on the fake: " << w["time"].dump();
  ASSERT_TRUE(w.contains("time_graph") && w["time_graph"].is_object()) << w.dump();
  EXPECT_GT(w["time_graph"]["median_ns"].get<double>(), 0);
  EXPECT_GE(w["time_graph"]["samples"].get<int>(), 30);
  EXPECT_EQ(w["time_graph"]["clock"], "cuda_event");
  EXPECT_FALSE(w["time_graph"]["stop_reason"].get<std::string>().empty());
  // Test workloads have no graph row; the eager checks' counts are the eager validation's.
  EXPECT_FALSE(r.verdict["workloads"][0].contains("time_graph"));
}

TEST_F(FakeGpuGraphs, KernelThatDoesNothingWhenReplayedIsIncorrect) {
  // Correct on every eager launch (validation, determinism), nothing when replayed from a graph.
  auto r = eval(write("eager_only.cu", "// kwb:launch eager_only grid=(ceil_div(n, 256)) block=(256) args=(a, b, c, n)\n"
                                       "extern \"C\" __global__ void eager_only(const float* a, const float* b, "
                                       "float* c, long long n) {}\n"));
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "incorrect") << reason(r);
  EXPECT_NE(reason(r).find("after a CUDA graph replay"), std::string::npos) << reason(r);
  EXPECT_NE(reason(r).find("launched eagerly was correct"), std::string::npos) << reason(r);
  EXPECT_EQ(r.exit_code, 1);
}

TEST_F(FakeGpuGraphs, LauncherThatLaunchesNothingUnderCaptureIsAnEmptyGraph) {
  auto r = eval(write("skips.launcher.cu", launcher("")), "cuda-launcher");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "rejected") << reason(r);
  EXPECT_NE(reason(r).find("empty graph: no kernel node"), std::string::npos) << reason(r);
}

TEST_F(FakeGpuGraphs, LauncherThatLaunchesAnIdleKernelUnderCaptureIsIncorrect) {
  auto r = eval(write("idle.launcher.cu", launcher("does_nothing")), "cuda-launcher");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "incorrect") << reason(r);
  EXPECT_NE(reason(r).find("after a CUDA graph replay"), std::string::npos) << reason(r);
}

TEST_F(FakeGpuGraphs, HonestLauncherIsAcceptedWithARowTimedByGraphReplay) {
  auto r = eval(write("honest.launcher.cu", launcher("vadd")), "cuda-launcher");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  ASSERT_EQ(r.verdict["status"], "accepted") << reason(r);
  const auto& w = r.verdict["workloads"].back();
  ASSERT_TRUE(w.contains("time_graph") && w["time_graph"].is_object()) << w.dump();
  EXPECT_GT(w["time_graph"]["median_ns"].get<double>(), 0);
}

}  // namespace
