// The spec format's double scalars and optional tensors on the CUDA path (docs/specs.md "Scalars",
// "Optional tensors"), against the fake driver (fake_driver/fake_libcuda.cpp emulates "axpy",
// "axpy_bits", "axpy_bias" and "axpy_ref"; real NVRTC compiles the sources): a `cuda`-form plan
// passes a scalar as an 8-byte double kernel argument (a kernel that reads its bits as an integer
// is wrong), tensor indices of a variant without the optional tensor skip it, and a GPU reference
// gets the scalar too. What a real GPU would add (the kernels' own arithmetic, cuda-launcher
// entries with doubles) is not covered here: docs/specs.md "Scalars" says what stays unverified.
#include <gtest/gtest.h>

#include <fstream>

#include "../../gpu/cuda_test_support.hpp"
#include "temp_dir.hpp"

#ifndef KWB_TEST_FAKE_LIBCUDA
#define KWB_TEST_FAKE_LIBCUDA ""
#endif

namespace {

using namespace kwb::cudatest;

// c = a + alpha * b (+ bias in variant f32_bias), alpha a double scalar drawn in [0.25, 4] for
// drawn shapes; with `gpu_reference`, reference.cu's axpy_ref judges the bench workload of f32.
const char* k_spec = R"({
  "op": "axpy",
  "version": 1,
  "summary": "c = a + alpha * b (+ bias), alpha a double scalar.",
  "params": ["n"],
  "scalars": [{"name": "alpha", "value": 0.5}],
  "tensors": [
    {"name": "a", "role": "in", "shape": ["n"]},
    {"name": "b", "role": "in", "shape": ["n"]},
    {"name": "bias", "role": "in", "shape": ["n"], "optional": true},
    {"name": "c", "role": "out", "shape": ["n"]}
  ],
  "variants": [
    {"name": "f32", "entry": "kwb_axpy_f32", "dtypes": {"a": "f32", "b": "f32", "c": "f32"},
     "tolerance": {"c": {"atol": 1e-6, "rtol": 1e-6}}, "roofline": {"bytes": "12*n", "flops": "2*n"}},
    {"name": "f32_bias", "entry": "kwb_axpy_f32_bias", "dtypes": {"a": "f32", "b": "f32", "bias": "f32", "c": "f32"},
     "tolerance": {"c": {"atol": 1e-6, "rtol": 1e-6}}, "roofline": {"bytes": "16*n", "flops": "3*n"}}
  ],
  "distributions": [
    {"name": "uniform", "tensors": {"a": {"kind": "uniform", "lo": -1, "hi": 1}, "b": {"kind": "uniform", "lo": -1, "hi": 1},
                                    "bias": {"kind": "uniform", "lo": -1, "hi": 1}}}
  ],
  "workloads": {
    "test": [{"name": "n1", "params": {"n": 1}}, {"name": "n37", "params": {"n": 37}, "scalars": {"alpha": 3}},
             {"name": "n1000", "params": {"n": 1000}, "scalars": {"alpha": -0.75}}],
    "bench": [{"name": "n4k", "params": {"n": 4096}}]
  },
  "shapes": {"ranges": {"n": "1..5000"}, "scalars": {"alpha": [0.25, 4]}}GPU_REFERENCE
})";

const char* k_reference_cpp = R"(
#include "core/reference.hpp"
namespace kwb::reference {
void axpy(const core::ReferenceArgs& a) {
  const int64_t n = a.param("n");
  const double alpha = a.scalar("alpha");
  const float* x = a.in<float>("a");
  const float* y = a.in<float>("b");
  const float* bias = a.has("bias") ? a.in<float>("bias") : nullptr;
  double* c = a.out("c");
  for (int64_t i = 0; i < n; ++i) c[i] = double(x[i]) + alpha * double(y[i]) + (bias ? double(bias[i]) : 0.0);
}
}
)";

const char* k_reference_cu = R"(
extern "C" __global__ void axpy_ref(const float* a, const float* b, double* c, long long n, double alpha) {}
)";

class FakeGpuScalars : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(KWB_TEST_FAKE_LIBCUDA).empty()) GTEST_SKIP() << "built without the CUDA toolkit";
  }

  std::filesystem::path specs(bool gpu_reference) {
    auto root = m_dir.path() / (gpu_reference ? "specs-ref" : "specs");
    std::filesystem::create_directories(root / "axpy");
    std::string spec = k_spec;
    const std::string mark = "GPU_REFERENCE";
    spec.replace(spec.find(mark), mark.size(),
                 gpu_reference ? ",\n  \"gpu_reference\": {\"file\": \"reference.cu\", \"launch\": {\"f32\": \"axpy_ref "
                                 "grid=(ceil_div(n, 256)) block=(256) args=(a, b, c, n, alpha)\"}}"
                               : "");
    std::ofstream(root / "axpy" / "spec.json") << spec;
    std::ofstream(root / "axpy" / "reference.cpp") << k_reference_cpp;
    std::ofstream(root / "axpy" / "reference.cu") << k_reference_cu;
    return root;
  }

  EvalResult eval(const std::string& kernel, const std::string& args, const std::string& params,
                  const std::string& variant, bool gpu_reference = false) {
    static int counter = 0;
    auto file = m_dir.path() / ("case" + std::to_string(counter++) + ".cu");
    std::ofstream(file) << "// kwb:launch " << kernel << " grid=(ceil_div(n, 256)) block=(256) args=(" << args
                        << ")\nextern \"C\" __global__ void " << kernel << "(" << params << ") {}\n";
    return run_for_verdict("KWB_LIBCLANG=off KWB_CUDA_DRIVER=" + shell_quote(KWB_TEST_FAKE_LIBCUDA) + " " +
                           (bin_dir() / "kwb").string() + " eval " + shell_quote(file.string()) +
                           " --op axpy --variant " + variant + " --json --time-budget-ms 30 --specs-dir " +
                           shell_quote(specs(gpu_reference).string()) + " --workspace " +
                           shell_quote((m_dir.path() / "ws").string()));
  }

  kwb::test::TempDir m_dir;
};

const char* k_axpy_params = "const float* a, const float* b, float* c, long long n, double alpha";

TEST_F(FakeGpuScalars, APlanKernelGetsTheScalarAsADouble) {
  auto r = eval("axpy", "a, b, c, n, alpha", k_axpy_params, "f32");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "accepted") << r.verdict["reason"];
  int drawn = 0;
  for (const auto& w : r.verdict["workloads"]) {
    EXPECT_TRUE(w["correct"].get<bool>()) << w["name"];
    drawn += w["drawn"].get<bool>();
  }
  EXPECT_EQ(drawn, 3);
}

TEST_F(FakeGpuScalars, AKernelReadingTheScalarsBitsAsAnIntegerIsIncorrect) {
  auto r = eval("axpy_bits", "a, b, c, n, alpha", k_axpy_params, "f32");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "incorrect") << r.verdict["reason"];
}

TEST_F(FakeGpuScalars, TensorIndicesOfTheVariantThatHasTheOptionalTensor) {
  auto r = eval("axpy_bias", "a, b, bias, c, n, alpha",
                "const float* a, const float* b, const float* bias, float* c, long long n, double alpha", "f32_bias");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "accepted") << r.verdict["reason"];
}

TEST_F(FakeGpuScalars, APlanNamingAnOptionalTensorItsVariantLeavesOutIsRejected) {
  auto r = eval("axpy_bias", "a, b, bias, c, n, alpha",
                "const float* a, const float* b, const float* bias, float* c, long long n, double alpha", "f32");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "rejected") << r.verdict["reason"];
  EXPECT_NE(r.verdict["reason"].get<std::string>().find("tensor 'bias' is optional and variant f32 leaves it out"),
            std::string::npos)
      << r.verdict["reason"];
}

TEST_F(FakeGpuScalars, TheGpuReferenceGetsTheScalarToo) {
  auto r = eval("axpy", "a, b, c, n, alpha", k_axpy_params, "f32", /*gpu_reference=*/true);
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "accepted") << r.verdict["reason"];
  bool judged = false;
  for (const auto& w : r.verdict["workloads"]) judged = judged || (w["name"] == "n4k" && w["reference"] == "gpu");
  EXPECT_TRUE(judged) << r.verdict["workloads"].dump();
}

}  // namespace
