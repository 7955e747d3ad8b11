// Static analysis in the CUDA pipeline (docs/analysis.md), through `kwb eval`: the analyze stage
// runs before NVRTC and before any device work, so these verdicts hold on a machine without a GPU
// (and with one). A candidate with a forbidden construct, state kept across calls or a kernel whose
// parameters do not take the launch plan's arguments is `rejected` with the finding in
// `diagnostics`, and nothing is compiled. Skips where libclang is not installed (the pipeline then
// goes on with a note, tested last).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "../../gpu/cuda_test_support.hpp"
#include "temp_dir.hpp"

namespace {

using namespace kwb::cudatest;

EvalResult eval_text(const std::string& name, const std::string& text, const std::string& args) {
  kwb::test::TempDir dir;
  std::ofstream(dir / name) << text;
  return kwb_eval((dir / name).string(), args);
}

bool analysis_unavailable(const EvalResult& r) {
  for (const auto& d : r.verdict["diagnostics"])
    if (d["rule"] == "analysis-unavailable") return true;
  return false;
}

// The first diagnostic of `rule`, or null.
const nlohmann::json* finding(const EvalResult& r, const std::string& rule) {
  for (const auto& d : r.verdict["diagnostics"])
    if (d["rule"] == rule) return &d;
  return nullptr;
}

#define KWB_EXPECT_REJECTED_BY(r, rule_id, line_no)                                                          \
  do {                                                                                                       \
    ASSERT_FALSE((r).verdict.is_discarded()) << (r).raw;                                                     \
    if (analysis_unavailable(r)) GTEST_SKIP() << "static analysis unavailable here (libclang)";             \
    EXPECT_EQ((r).exit_code, 1);                                                                             \
    EXPECT_EQ((r).verdict["status"], "rejected") << (r).verdict["reason"];                                   \
    EXPECT_EQ((r).verdict["reason"].get<std::string>().rfind(std::string(rule_id) + ": k.cu:", 0), 0u)      \
        << (r).verdict["reason"];                                                                            \
    const nlohmann::json* f = finding(r, rule_id);                                                           \
    ASSERT_NE(f, nullptr) << (r).verdict["diagnostics"].dump();                                              \
    EXPECT_EQ((*f)["severity"], "error");                                                                    \
    EXPECT_EQ((*f)["file"], "k.cu");                                                                         \
    EXPECT_EQ((*f)["line"], line_no);                                                                        \
    EXPECT_GT((*f)["col"].get<int>(), 0);                                                                    \
    EXPECT_TRUE((r).verdict["summary"]["stage_ms"].contains("analyze"));                                     \
    EXPECT_FALSE((r).verdict["summary"]["stage_ms"].contains("compile")) << "rejected before compiling";     \
  } while (0)

TEST(CudaAnalysis, ForbiddenCallIsRejectedBeforeCompiling) {
  auto r = eval_text("k.cu", R"(// kwb:launch vadd grid=(ceil_div(n, 256)) block=(256) args=(a, b, c, n)
extern "C" __global__ void vadd(const float* a, const float* b, float* c, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i] + 0.f * float(clock64());
}
)",
                     "--op vector_add");
  KWB_EXPECT_REJECTED_BY(r, "forbidden-call", 4);
  EXPECT_NE((*finding(r, "forbidden-call"))["message"].get<std::string>().find("clock64"), std::string::npos);
}

TEST(CudaAnalysis, KernelParametersMustTakeTheLaunchArguments) {
  // Two launches; the second kernel takes the input as non-const and `cols` as a 32-bit int.
  auto r = eval_text("k.cu", R"(// kwb:launch partial grid=(rows) block=(256) args=(x, rows, cols, workspace)
// kwb:launch finish grid=(1) block=(256) args=(x, y, rows, cols, workspace)
// kwb:workspace bytes=4*rows
extern "C" __global__ void partial(const float* x, long long rows, long long cols, float* ws) {}
extern "C" __global__ void finish(float* x, float* y, long long rows, int cols, float* ws) {}
)",
                     "--op row_sum");
  KWB_EXPECT_REJECTED_BY(r, "entry-signature", 5);
  std::string m = (*finding(r, "entry-signature"))["message"];
  EXPECT_NE(m.find("'finish'"), std::string::npos) << m;
  EXPECT_NE(m.find("const float*"), std::string::npos) << m;
  int errors = 0;
  for (const auto& d : r.verdict["diagnostics"]) errors += d["severity"] == "error";
  EXPECT_EQ(errors, 1) << "the first launch's kernel is right: " << r.verdict["diagnostics"].dump();
}

TEST(CudaAnalysis, StateKeptAcrossCallsIsRejected) {
  auto r = eval_text("k.cu", R"(// kwb:launch vadd grid=(ceil_div(n, 256)) block=(256) args=(a, b, c, n)
__device__ int g_calls;
extern "C" __global__ void vadd(const float* a, const float* b, float* c, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) atomicAdd(&g_calls, 1);
  if (i < n) c[i] = a[i] + b[i];
}
)",
                     "--op vector_add");
  KWB_EXPECT_REJECTED_BY(r, "mutable-global-state", 5);
}

TEST(CudaAnalysis, ParseErrorIsACompileErrorBeforeNvrtc) {
  auto r = eval_text("k.cu", R"(// kwb:launch vadd grid=(ceil_div(n, 256)) block=(256) args=(a, b, c, n)
extern "C" __global__ void vadd(const float* a, const float* b, float* c, long long n) {
  c[0] = undeclared_name;
}
)",
                     "--op vector_add");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  if (analysis_unavailable(r)) GTEST_SKIP() << "static analysis unavailable here (libclang)";
  EXPECT_EQ(r.verdict["status"], "compile_error");
  EXPECT_EQ(r.verdict["reason"].get<std::string>().rfind("parse: k.cu:3:", 0), 0u) << r.verdict["reason"];
  EXPECT_FALSE(r.verdict["summary"]["stage_ms"].contains("compile"));
}

TEST(CudaAnalysis, WithoutLibclangTheCandidateGoesOnWithANote) {
  ::setenv("KWB_LIBCLANG", "off", 1);
  auto r = eval_text("k.cu", R"(// kwb:launch vadd grid=(ceil_div(n, 256)) block=(256) args=(a, b, c, n)
__device__ int g_calls;
extern "C" __global__ void vadd(const float* a, const float* b, float* c, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
)",
                     "--op vector_add");
  ::unsetenv("KWB_LIBCLANG");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  const nlohmann::json* note = finding(r, "analysis-unavailable");
  ASSERT_NE(note, nullptr) << r.verdict["diagnostics"].dump();
  EXPECT_EQ((*note)["severity"], "note");
  EXPECT_NE((*note)["message"].get<std::string>().find("cuda candidates are allowed without it"), std::string::npos);
  // Compiled, then no_device (or, with a GPU, validated and timed).
  EXPECT_TRUE(r.verdict["summary"]["stage_ms"].contains("compile"));
  EXPECT_NE(r.verdict["status"], "rejected") << r.verdict["reason"];
  if (!gpu_available()) {
    EXPECT_EQ(r.verdict["status"], "no_device") << r.verdict["reason"];
  }
}

}  // namespace
