// Persisting L2 state before every sample of a cuda-launcher (issue 35 point 5, docs/cuda.md
// "Persisting L2 lines"). The launcher below sets an access-policy window with persisting hits
// on the runner's stream and raises the L2 set-aside on every call, then launches the fake
// driver's "l2window" kernel, whose data stays in L2 (its sample reads 1 ns) unless, since its
// last launch, the runner emptied the stream's window, took the set-aside back to 0 and reset
// the persisting lines (fake_driver/fake_l2.cpp). The runner's per-sample figures come from
// KWB_RUNNER_TRACE ("launcher sample ... us"): none may read 1 ns.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "../../gpu/cuda_test_support.hpp"
#include "temp_dir.hpp"

#ifndef KWB_TEST_FAKE_LIBCUDA
#define KWB_TEST_FAKE_LIBCUDA ""  // no CUDA toolkit at build time: the tests skip
#endif

namespace {

using namespace kwb::cudatest;

// The launcher reaches the driver the runner loaded (RTLD_NOLOAD: the fake, by its soname).
constexpr const char* k_window_launcher = R"(#include <cuda.h>
#include <dlfcn.h>
#include <cstdint>
#include <cuda_runtime.h>

template <class F>
F driver(const char* name) {
  static void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  return lib ? reinterpret_cast<F>(dlsym(lib, name)) : nullptr;
}

extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n, cudaStream_t stream) {
  auto set_attr = driver<decltype(&cuStreamSetAttribute)>("cuStreamSetAttribute");
  auto set_limit = driver<decltype(&cuCtxSetLimit)>("cuCtxSetLimit");
  auto get_fn = driver<decltype(&cuModuleGetFunction)>("cuModuleGetFunction");
  auto launch = driver<decltype(&cuLaunchKernel)>("cuLaunchKernel");
  if (!set_attr || !set_limit || !get_fn || !launch) return;
  set_limit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, size_t(512) << 10);
  CUstreamAttrValue w{};
  w.accessPolicyWindow.base_ptr = const_cast<float*>(a);
  w.accessPolicyWindow.num_bytes = size_t(n) * sizeof(float);
  w.accessPolicyWindow.hitRatio = 1.0f;
  w.accessPolicyWindow.hitProp = CU_ACCESS_PROPERTY_PERSISTING;
  w.accessPolicyWindow.missProp = CU_ACCESS_PROPERTY_STREAMING;
  set_attr(reinterpret_cast<CUstream>(stream), CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, &w);
  CUfunction f = nullptr;
  if (get_fn(&f, nullptr, "l2window") != CUDA_SUCCESS) return;
  CUdeviceptr pa = CUdeviceptr(a), pb = CUdeviceptr(b), pc = CUdeviceptr(c);
  long long count = n;
  void* args[] = {&pa, &pb, &pc, &count};
  launch(f, 1, 1, 1, 256, 1, 1, 0, reinterpret_cast<CUstream>(stream), args, nullptr);
}
)";

class FakeGpuL2 : public ::testing::Test {
 protected:
  // specs/ with vector_add only, its bench workloads shrunk to one a CPU emulates quickly.
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
  kwb::test::TempDir m_dir;
};

TEST_F(FakeGpuL2, ALaunchersWindowAndSetAsideAreUndoneBeforeEverySample) {
  auto source = m_dir.path() / "window.launcher.cu";
  std::ofstream(source) << k_window_launcher;
  auto trace = m_dir.path() / "trace.txt";
  auto r = run_for_verdict("KWB_LIBCLANG=off KWB_RUNNER_TRACE=1 KWB_CUDA_DRIVER=" + shell_quote(KWB_TEST_FAKE_LIBCUDA) +
                           " " + (bin_dir() / "kwb").string() + " eval " + shell_quote(source.string()) +
                           " --op vector_add --backend cuda-launcher --json --time-budget-ms 30 --specs-dir " +
                           shell_quote((m_dir.path() / "specs").string()) + " --workspace " +
                           shell_quote((m_dir.path() / "ws").string()) + " 2>" + shell_quote(trace.string()));
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "accepted") << r.verdict["reason"];
  std::ifstream in(trace);
  const std::regex sample(R"(launcher sample +([0-9.]+) us)");
  int samples = 0, kept = 0;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, sample)) continue;
    ++samples;
    if (std::stod(m[1]) < 0.05) ++kept;  // 1 ns: the launch found its data kept in L2
  }
  EXPECT_GT(samples, 3);
  EXPECT_EQ(kept, 0) << kept << " of " << samples << " samples started with the launcher's persisting L2 state";
}

}  // namespace
