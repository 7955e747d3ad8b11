// cuda-launcher candidates: the host entry's signature, stream discipline (launcher-streams) and
// the CPU form's host-code rules, on sources parsed on the CUDA host side.
#include <chrono>

#include "support.hpp"
#include "util/fs.hpp"

namespace kwb::analysis::test {
namespace {

namespace fs = std::filesystem;

// A vector_add launcher: an `add` kernel, `prelude` before the entry and `body` inside it.
std::string launcher(const std::string& body, const std::string& prelude = "") {
  return "#include <cstdint>\n#include <cuda_runtime.h>\n"
         "__global__ void add(const float* a, const float* b, float* c, int64_t n) {\n"
         "  int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;\n"
         "  if (i < n) c[i] = a[i] + b[i];\n"
         "}\n" +
         prelude +
         "\nextern \"C\" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n, "
         "cudaStream_t stream) {\n" +
         body + "\n}\n";
}

Report run_launcher(const std::string& source, const std::string& op = "vector_add", const std::string& variant = "f32") {
  return run(source, op, "cuda-launcher", variant);
}

TEST(Launcher, CleanVectorAddHasNoFindings) {
  auto r = run_launcher(launcher("if (n == 0) return;\n"
                                 "add<<<unsigned((n + 255) / 256), 256, 0, stream>>>(a, b, c, n);"));
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_TRUE(r.findings.empty()) << dump(r);
  EXPECT_TRUE(r.parsed_with.empty());
}

TEST(Launcher, StreamThroughALocalAndAHelperIsTheStream) {
  auto r = run_launcher(launcher("cudaStream_t s = stream;\n"
                                 "const cudaStream_t s2(s);\n"
                                 "add<<<1, 256, 0, s2>>>(a, b, c, n);\n"
                                 "launch(a, b, c, n, s);\n"
                                 "cudaMemsetAsync(c, 0, sizeof(float), (stream));\n"
                                 "auto go = [&](cudaStream_t t) { add<<<2, 128, 0, t>>>(a, b, c, n); };\n"
                                 "go(stream);",
                                 "static void launch(const float* a, const float* b, float* c, int64_t n, "
                                 "cudaStream_t st) { add<<<1, 32, 0, st>>>(a, b, c, n); }\n"));
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_TRUE(r.findings.empty()) << dump(r);
}

struct Case {
  const char* name;
  const char* prelude;
  const char* body;
  const char* rule;
  const char* expect;  // substring of the finding's message
};

class LauncherRefuses : public ::testing::TestWithParam<Case> {};

TEST_P(LauncherRefuses, WithAnActionableFinding) {
  const auto& c = GetParam();
  auto r = run_launcher(launcher(c.body, c.prelude));
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_EQ(count(r, "parse"), 0) << dump(r);
  const core::Diagnostic* hit = nullptr;
  for (const auto& f : r.findings)
    if (f.rule == c.rule && f.message.find(c.expect) != std::string::npos) hit = &f;
  ASSERT_NE(hit, nullptr) << "expected " << c.rule << ": " << c.expect << "\n" << dump(r);
  EXPECT_EQ(hit->severity, "error");
  EXPECT_GT(hit->line, 0);
  EXPECT_TRUE(r.has_errors());
}

const Case k_cases[] = {
    {"own_stream", "", "cudaStream_t s; cudaStreamCreate(&s); add<<<1, 256, 0, s>>>(a, b, c, n);",
     "launcher-streams", "'cudaStreamCreate' creates a stream; all GPU work must go on the entry's `stream`"},
    {"own_stream_launch", "", "cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); "
                              "add<<<1, 256, 0, s>>>(a, b, c, n);",
     "launcher-streams", "kernel launch 'add<<<1, 256, 0, s>>>' runs on 's', not on the entry's `stream` parameter"},
    {"event", "", "cudaEvent_t e; cudaEventCreate(&e);", "launcher-streams", "'cudaEventCreate' creates an event"},
    {"graph_capture", "", "cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);", "launcher-streams",
     "CUDA graph"},
    {"default_stream_launch", "", "add<<<1, 256>>>(a, b, c, n);", "launcher-streams",
     "kernel launch 'add<<<1, 256>>>' has 2 launch-configuration arguments, so it runs on the default stream"},
    {"default_stream_launch_smem", "", "add<<<1, 256, 0>>>(a, b, c, n);", "launcher-streams",
     "launch on the entry's `stream` parameter: add<<<grid, block, smem, stream>>>(...)"},
    {"launch_on_zero", "", "add<<<1, 256, 0, 0>>>(a, b, c, n);", "launcher-streams",
     "runs on '0' (the default stream), not on the entry's `stream` parameter"},
    {"launch_on_nullptr", "", "add<<<1, 256, 0, nullptr>>>(a, b, c, n);", "launcher-streams",
     "runs on 'nullptr' (the default stream)"},
    {"per_thread_stream", "", "add<<<1, 256, 0, cudaStreamPerThread>>>(a, b, c, n);", "launcher-streams",
     "runs on 'cudaStreamPerThread' (the per-thread default stream)"},
    {"legacy_stream", "", "cudaMemsetAsync(c, 0, 4, cudaStreamLegacy);", "launcher-streams",
     "'cudaMemsetAsync' is given 'cudaStreamLegacy' (the legacy default stream) as its stream"},
    {"host_func", "", "cudaLaunchHostFunc(stream, [](void*) {}, nullptr);", "launcher-streams",
     "'cudaLaunchHostFunc' runs a host function from a stream (a host callback)"},
    {"stream_callback", "", "cudaStreamAddCallback(stream, nullptr, nullptr, 0);", "launcher-streams",
     "host callback"},
    {"device_synchronize", "", "add<<<1, 256, 0, stream>>>(a, b, c, n); cudaDeviceSynchronize();",
     "launcher-streams", "'cudaDeviceSynchronize' acts on the whole device"},
    {"device_set_limit", "", "cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);", "launcher-streams",
     "'cudaDeviceSetLimit' acts on the whole device"},
    {"set_device", "", "cudaSetDevice(0);", "launcher-streams", "'cudaSetDevice' acts on the whole device"},
    {"sync_memcpy", "", "cudaMemcpy(c, a, n * sizeof(float), cudaMemcpyDeviceToDevice);", "launcher-streams",
     "'cudaMemcpy' copies or sets memory on the default stream (it takes no stream); use the Async form"},
    {"sync_memset", "", "cudaMemset(c, 0, n * sizeof(float));", "launcher-streams", "'cudaMemset' copies or sets"},
    {"memcpy_async_default", "", "cudaMemcpyAsync(c, a, 4, cudaMemcpyDeviceToDevice);", "launcher-streams",
     "'cudaMemcpyAsync' is called without its stream argument (parameter 'stream'), so it runs on the default "
     "stream"},
    {"memcpy_async_other_stream", "", "cudaStream_t other = nullptr; "
                                      "cudaMemcpyAsync(c, a, 4, cudaMemcpyDeviceToDevice, other);",
     "launcher-streams", "'cudaMemcpyAsync' is given 'other' as its stream (parameter 'stream'), not the entry's "
                         "`stream` parameter"},
    {"memcpy_to_host", "", "float h[4]; cudaMemcpyAsync(h, a, sizeof h, cudaMemcpyDeviceToHost, stream);",
     "launcher-streams", "copies to host memory (cudaMemcpyDeviceToHost)"},
    {"malloc_host", "", "void* p; cudaMallocHost(&p, 64);", "launcher-streams",
     "'cudaMallocHost' allocates or registers host (pinned or managed) memory"},
    {"malloc_managed", "", "void* p; cudaMallocManaged(&p, 64);", "launcher-streams", "cudaMallocAsync(&p, bytes"},
    {"malloc_async_default", "", "void* p; cudaMallocAsync(&p, 64, 0); cudaFreeAsync(p, stream);",
     "launcher-streams", "'cudaMallocAsync' is given '0' (the default stream)"},
    {"stream_reassigned", "", "stream = 0; add<<<1, 256, 0, stream>>>(a, b, c, n);", "launcher-streams",
     "the stream variable 'stream' is changed here"},
    {"helper_given_zero", "static void launch(float* c, cudaStream_t s) { cudaMemsetAsync(c, 0, 4, s); }",
     "launch(c, 0);", "launcher-streams", "'launch' is given '0' (the default stream) as its stream"},
    {"function_pointer_given_zero", "static void launch(float* c, cudaStream_t s) { cudaMemsetAsync(c, 0, 4, s); }",
     "void (*fp)(float*, cudaStream_t) = launch; fp(c, 0);", "launcher-streams",
     "'fp' is given '0' (the default stream) as its stream (parameter 2)"},
    {"function_pointer_to_device_sync", "", "auto sync = &cudaDeviceSynchronize; sync();", "launcher-streams",
     "'cudaDeviceSynchronize' acts on the whole device"},
    {"cuda_arch", "", "#ifdef __CUDA_ARCH__\nadd<<<1, 1, 0, 0>>>(a, b, c, n);\n#endif", "preprocessor",
     "'__CUDA_ARCH__' in a cuda-launcher source"},
    // The CPU form's host-code rules.
    {"std_thread", "#include <thread>",
     "std::thread t([&] { add<<<1, 256, 0, stream>>>(a, b, c, n); }); t.join();", "forbidden-call",
     "'std::thread' (thread)"},
    {"host_timer", "#include <chrono>", "auto t = std::chrono::steady_clock::now(); (void)t;", "forbidden-call",
     "(timer)"},
    {"dlopen", "#include <dlfcn.h>", "dlopen(\"libcuda.so.1\", RTLD_NOW);", "forbidden-call", "(dynamic-loading)"},
    {"getenv", "#include <cstdlib>", "std::getenv(\"CUDA_VISIBLE_DEVICES\");", "forbidden-call", "(environment)"},
    {"static_scratch", "static float* g_scratch = nullptr;",
     "if (!g_scratch) cudaMalloc(&g_scratch, 1 << 20);", "mutable-global-state", "'g_scratch'"},
    // Device code keeps the cuda form's rules.
    {"device_clock", "__global__ void spin(float* c) { c[0] = float(clock64()); }",
     "spin<<<1, 1, 0, stream>>>(c);", "forbidden-call", "'clock64' (timer)"},
};

INSTANTIATE_TEST_SUITE_P(Patterns, LauncherRefuses, ::testing::ValuesIn(k_cases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(Launcher, StaticCublasHandleIsPersistentState) {
  std::string prelude = "#include <cublas_v2.h>\n";
  std::string body = "if (!h) cublasCreate(&h);\ncublasSetStream(h, stream);\n"
                     "const float one = 1.0f;\ncublasSaxpy(h, int(n), &one, a, 1, c, 1);";
  auto r = run_launcher(launcher(body, prelude + "static cublasHandle_t h;"));
  KWB_REQUIRE_AVAILABLE(r);
  ASSERT_EQ(count(r, "mutable-global-state"), 1) << dump(r);
  const std::string m = find(r, "mutable-global-state")->message;
  EXPECT_NE(m.find("static variable 'h' keeps a cuBLAS handle (cublasHandle_t) across calls"), std::string::npos) << m;
  EXPECT_NE(m.find("create the handle per call"), std::string::npos) << m;
  // Only initialised (once), never written: still a handle kept across calls.
  auto init_only = run_launcher(launcher(
      "cublasSetStream(cached, stream);",
      prelude + "static cublasHandle_t make() { cublasHandle_t x; cublasCreate(&x); return x; }\n"
                "static cublasHandle_t cached = make();"));
  EXPECT_EQ(count(init_only, "mutable-global-state"), 1) << dump(init_only);
}

TEST(Launcher, EntrySignature) {
  auto missing_stream = run_launcher("#include <cstdint>\n#include <cuda_runtime.h>\nextern \"C\" void "
                                     "kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {}\n");
  KWB_REQUIRE_AVAILABLE(missing_stream);
  ASSERT_EQ(count(missing_stream, "entry-signature"), 1) << dump(missing_stream);
  std::string m = find(missing_stream, "entry-signature")->message;
  EXPECT_NE(m.find("4 parameters instead of 5"), std::string::npos) << m;
  EXPECT_NE(m.find("expected: void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n, "
                   "cudaStream_t stream)"),
            std::string::npos)
      << m;

  auto constness = run_launcher("#include <cstdint>\n#include <cuda_runtime.h>\nextern \"C\" void "
                                "kwb_vector_add_f32(float* a, const float* b, float* c, int64_t n, cudaStream_t s) {}\n");
  ASSERT_EQ(count(constness, "entry-signature"), 1) << dump(constness);
  m = find(constness, "entry-signature")->message;
  EXPECT_NE(m.find("parameter 1 ('a'): expected const float*, got float*"), std::string::npos) << m;

  auto int_stream = run_launcher("#include <cstdint>\n#include <cuda_runtime.h>\nextern \"C\" void "
                                 "kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n, int s) {}\n");
  ASSERT_EQ(count(int_stream, "entry-signature"), 1) << dump(int_stream);
  EXPECT_NE(find(int_stream, "entry-signature")->message.find("parameter 5 ('stream'): expected cudaStream_t, got int"),
            std::string::npos)
      << dump(int_stream);

  auto kernel = run_launcher("#include <cstdint>\n#include <cuda_runtime.h>\nextern \"C\" __global__ void "
                             "kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n, cudaStream_t s) {}\n");
  ASSERT_EQ(count(kernel, "entry-signature"), 1) << dump(kernel);
  EXPECT_NE(find(kernel, "entry-signature")->message.find("must be a host function, not a __global__ kernel"),
            std::string::npos);

  auto mangled = run_launcher("#include <cstdint>\n#include <cuda_runtime.h>\nvoid kwb_vector_add_f32(const float* "
                              "a, const float* b, float* c, int64_t n, cudaStream_t s) {}\n");
  ASSERT_EQ(count(mangled, "entry-signature"), 1) << dump(mangled);
  EXPECT_NE(find(mangled, "entry-signature")->message.find("declare it extern \"C\""), std::string::npos);
}

TEST(Launcher, Cublas) {
  std::string head = "#include <cstdint>\n#include <cublas_v2.h>\n"
                     "extern \"C\" void kwb_gemm_f32(const float* a, const float* b, float* c, int64_t m, int64_t n, "
                     "int64_t k, cudaStream_t stream) {\n"
                     "  cublasHandle_t h;\n  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return;\n";
  std::string gemm = "  const float one = 1.0f, zero = 0.0f;\n"
                     "  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(m), int(k), &one, b, int(n), a, int(k), "
                     "&zero, c, int(n));\n  cublasDestroy(h);\n}\n";
  auto clean = run_launcher(head + "  cublasSetStream(h, stream);\n" + gemm, "gemm");
  KWB_REQUIRE_AVAILABLE(clean);
  EXPECT_TRUE(clean.findings.empty()) << dump(clean);

  auto no_stream = run_launcher(head + gemm, "gemm");
  ASSERT_EQ(count(no_stream, "launcher-streams"), 1) << dump(no_stream);
  EXPECT_NE(find(no_stream, "launcher-streams")->message.find("call cublasSetStream(handle, stream) after cublasCreate"),
            std::string::npos)
      << dump(no_stream);

  auto wrong_stream = run_launcher(head + "  cublasSetStream(h, 0);\n" + gemm, "gemm");
  EXPECT_NE(dump(wrong_stream).find("'cublasSetStream_v2' is given '0' (the default stream)"), std::string::npos)
      << dump(wrong_stream);
}

TEST(Launcher, Cub) {
  auto source = [](const std::string& second_call) {
    return "#include <cstdint>\n#include <cub/cub.cuh>\n"
           "extern \"C\" void kwb_row_sum_f32(const float* x, float* y, int64_t rows, int64_t cols, "
           "cudaStream_t stream) {\n"
           "  size_t bytes = 0;\n"
           "  cub::DeviceReduce::Sum(nullptr, bytes, x, y, int(cols), stream);\n"
           "  void* tmp = nullptr;\n"
           "  cudaMallocAsync(&tmp, bytes, stream);\n  " +
           second_call + "\n  cudaFreeAsync(tmp, stream);\n}\n";
  };
  auto start = std::chrono::steady_clock::now();
  auto clean = run_launcher(source("cub::DeviceReduce::Sum(tmp, bytes, x, y, int(cols), stream);"), "row_sum");
  KWB_REQUIRE_AVAILABLE(clean);
  EXPECT_TRUE(clean.findings.empty()) << dump(clean);
  std::printf("cub launcher: %.0f ms (first in this process)\n",
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());

  auto defaulted = run_launcher(source("cub::DeviceReduce::Sum(tmp, bytes, x, y, int(cols));"), "row_sum");
  std::printf("cub launcher: %.0f ms\n", defaulted.ms);
  ASSERT_EQ(count(defaulted, "launcher-streams"), 1) << dump(defaulted);
  EXPECT_NE(find(defaulted, "launcher-streams")
                ->message.find("'cub::DeviceReduce::Sum' is called without its stream argument (parameter 'stream')"),
            std::string::npos)
      << dump(defaulted);
}

// The specs' CUB baselines are launchers too (trusted, not analysed as candidates): they keep
// to the stream. The cuBLAS one caches its handle, which a candidate may not.
TEST(Launcher, SpecBaselines) {
  struct Baseline {
    const char* op;
    const char* variant;
    const char* file;
  };
  for (const Baseline& b : {Baseline{"histogram", "u8", "baseline_cub.cu"}, Baseline{"prefix_sum", "i32", "baseline_cub.cu"},
                            Baseline{"row_sum", "f32", "baseline_cub.cu"}, Baseline{"gemm", "f32", "baseline_cublas.cu"}}) {
    auto text = util::read_file(fs::path(KWB_TEST_SOURCE_DIR) / "specs" / b.op / b.file);
    ASSERT_TRUE(text) << b.op;
    auto r = run_launcher(*text, b.op, b.variant);
    KWB_REQUIRE_AVAILABLE(r);
    EXPECT_EQ(count(r, "parse"), 0) << b.op << "\n" << dump(r);
    EXPECT_EQ(count(r, "launcher-streams"), 0) << b.op << "\n" << dump(r);
    EXPECT_EQ(count(r, "entry-signature"), 0) << b.op << "\n" << dump(r);
    if (std::string(b.file) == "baseline_cublas.cu") {
      EXPECT_EQ(count(r, "mutable-global-state"), 1) << dump(r);
    }
  }
}

}  // namespace
}  // namespace kwb::analysis::test
