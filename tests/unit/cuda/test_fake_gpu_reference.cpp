// A spec's GPU reference (docs/specs.md "GPU references") through the whole CUDA path, against
// the fake driver (fake_driver/fake_libcuda.cpp emulates "vadd_ref", "vadd_ref_off" and
// "vadd_ref_fault" by name; real NVRTC compiles reference.cu): it is cross-checked against the
// CPU reference on every test workload and then judges the bench workloads; one that disagrees or
// crashes is the spec's error, never the candidate's.
#include <gtest/gtest.h>

#include <fstream>

#include "../../gpu/cuda_test_support.hpp"
#include "temp_dir.hpp"

#ifndef KWB_TEST_FAKE_LIBCUDA
#define KWB_TEST_FAKE_LIBCUDA ""
#endif

namespace {

using namespace kwb::cudatest;

// reference.cu holds the three kernels; the spec's launch line picks the one the fake driver runs.
const char* k_reference_cu = R"(
extern "C" __global__ void vadd_ref(const float* a, const float* b, double* c, long long n) {
  long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < n) c[i] = double(a[i] + b[i]);
}
extern "C" __global__ void vadd_ref_off(const float* a, const float* b, double* c, long long n) {}
extern "C" __global__ void vadd_ref_fault(const float* a, const float* b, double* c, long long n) {}
)";

class FakeGpuReference : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(KWB_TEST_FAKE_LIBCUDA).empty()) GTEST_SKIP() << "built without the CUDA toolkit";
  }

  // specs/vector_add with bench n4k and n8k, and a GPU reference running `kernel` for `judged`
  // (none: no GPU reference).
  std::filesystem::path specs_with(const std::string& kernel, const std::string& judged = "") {
    auto root = m_dir.path() / ("specs-" + kernel + judged);
    auto dir = root / "vector_add";
    std::filesystem::create_directories(dir);
    std::string spec = read_text(source_dir() / "specs/vector_add/spec.json");
    size_t b = spec.find("\"bench\": [");
    size_t e = spec.find("\n    ]", b);
    EXPECT_NE(b, std::string::npos);
    EXPECT_NE(e, std::string::npos);
    spec = spec.substr(0, b) +
           "\"bench\": [\n      {\"name\": \"n4k\", \"params\": {\"n\": 4096}},\n"
           "      {\"name\": \"n8k\", \"params\": {\"n\": 8192}}" +
           spec.substr(e);
    size_t last = spec.rfind('}');
    if (kernel != "none")
      spec = spec.substr(0, last) + ",\n  \"gpu_reference\": {\"file\": \"reference.cu\", \"launch\": {\"f32\": \"" +
           kernel + " grid=(ceil_div(n, 256)) block=(256) args=(a, b, c, n)\"}" +
           (judged.empty() ? "" : ", \"workloads\": [\"" + judged + "\"]") + "}\n}\n";
    std::ofstream(dir / "spec.json") << spec;
    std::ofstream(dir / "reference.cu") << k_reference_cu;
    std::filesystem::copy_file(source_dir() / "specs/vector_add/reference.cpp", dir / "reference.cpp");
    return root;
  }

  EvalResult eval(const std::filesystem::path& specs, const std::string& extra = "") {
    return run_for_verdict("KWB_LIBCLANG=off KWB_CUDA_DRIVER=" + shell_quote(KWB_TEST_FAKE_LIBCUDA) + " " +
                           (bin_dir() / "kwb").string() + " eval " +
                           shell_quote((source_dir() / "kernels/vector_add/cuda/vectorized.cu").string()) +
                           " --op vector_add --json --time-budget-ms 30 --no-baseline " + extra + " --specs-dir " +
                           shell_quote(specs.string()) + " --workspace " + shell_quote((m_dir.path() / "ws").string()));
  }

  static std::map<std::string, std::string> judges(const nlohmann::json& verdict) {
    std::map<std::string, std::string> out;
    for (const auto& w : verdict["workloads"]) out[w["name"].get<std::string>()] = w["reference"].get<std::string>();
    return out;
  }

  kwb::test::TempDir m_dir;
};

TEST_F(FakeGpuReference, JudgesTheBenchWorkloadsAfterAgreeingOnEveryTestWorkload) {
  auto r = eval(specs_with("vadd_ref"));
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "accepted") << r.verdict["reason"];
  EXPECT_NE(r.verdict["reason"].get<std::string>().find("2 bench workloads judged by the spec's GPU reference (reference.cu)"),
            std::string::npos)
      << r.verdict["reason"];
  for (const auto& w : r.verdict["workloads"])
    EXPECT_EQ(w["reference"], w["kind"] == "bench" ? "gpu" : "cpu") << w["name"];
  EXPECT_TRUE(r.verdict["summary"]["stage_ms"].contains("reference_compile")) << r.verdict["summary"];
}

TEST_F(FakeGpuReference, JudgesOnlyTheWorkloadsItNames) {
  auto r = eval(specs_with("vadd_ref", "n8k"));
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "accepted") << r.verdict["reason"];
  auto by = judges(r.verdict);
  EXPECT_EQ(by["n4k"], "cpu");
  EXPECT_EQ(by["n8k"], "gpu");
  EXPECT_EQ(by["n1"], "cpu");
}

TEST_F(FakeGpuReference, OneThatDisagreesWithTheCpuReferenceIsTheSpecsError) {
  // Off by one in the last element: caught on the first test workload, before any bench workload.
  auto r = eval(specs_with("vadd_ref_off"));
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "error") << r.verdict["reason"];
  const std::string reason = r.verdict["reason"];
  EXPECT_NE(reason.find("spec vector_add v1"), std::string::npos) << reason;
  EXPECT_NE(reason.find("workload n1 (inputs: uniform): its GPU reference (reference.cu) disagrees with the CPU "
                        "reference (reference.cpp): "),
            std::string::npos)
      << reason;
  EXPECT_NE(reason.find("the spec is at fault, not the candidate"), std::string::npos) << reason;
  for (const auto& w : r.verdict["workloads"]) EXPECT_NE(w["kind"], "bench") << "no bench workload was judged";
}

TEST_F(FakeGpuReference, OneThatCrashesIsTheSpecsErrorNamingTheFault) {
  auto r = eval(specs_with("vadd_ref_fault"));
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "error") << r.verdict["reason"];
  const std::string reason = r.verdict["reason"];
  EXPECT_NE(reason.find("its GPU reference (reference.cu): "), std::string::npos) << reason;
  EXPECT_NE(reason.find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos) << reason;
  EXPECT_NE(reason.find("the spec is at fault"), std::string::npos) << reason;
}

TEST_F(FakeGpuReference, OneThatDoesNotCompileIsTheSpecsError) {
  auto specs = specs_with("vadd_ref");
  std::ofstream(specs / "vector_add/reference.cu") << "extern \"C\" __global__ void vadd_ref(oops) {}\n";
  auto r = eval(specs);
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "error") << r.verdict["reason"];
  EXPECT_NE(r.verdict["reason"].get<std::string>().find("its GPU reference (reference.cu) does not compile"),
            std::string::npos)
      << r.verdict["reason"];
}

TEST_F(FakeGpuReference, WithoutOneEveryWorkloadIsJudgedOnTheCpu) {
  auto r = eval(specs_with("none"));
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "accepted") << r.verdict["reason"];
  EXPECT_EQ(r.verdict["reason"].get<std::string>().find("GPU reference"), std::string::npos) << r.verdict["reason"];
  for (const auto& [name, by] : judges(r.verdict)) EXPECT_EQ(by, "cpu") << name;
  EXPECT_FALSE(r.verdict["summary"]["stage_ms"].contains("reference_compile")) << r.verdict["summary"];
}

}  // namespace
