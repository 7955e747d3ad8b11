// The CUDA path on a machine without a GPU (what CI sees): every shipped CUDA kernel and every
// corpus case compiles with NVRTC and ends in `no_device` (exit 1), except the corpus cases that
// are decided before any GPU work (stage=compile), which get their declared verdict here too.
// On a machine with a GPU these tests skip; tests/gpu covers that case. The corpus runs with static
// analysis off (KWB_LIBCLANG=off, as tests/security does for CPU): it tests the defences that hold
// for code the analyzer misses; test_cuda_analysis.cpp covers what the analyzer rejects.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "../../gpu/cuda_test_support.hpp"

namespace {

using namespace kwb::cudatest;

TEST(CudaKernels, CoverEveryStarterVariant) {
  std::set<std::string> have;
  for (const auto& k : shipped_cuda_kernels()) have.insert(k.op + "/" + k.variant);
  for (const char* want : {"vector_add/f32", "row_sum/f32", "softmax/f32", "rmsnorm/f32", "layernorm/f32",
                           "transpose/f32", "gemm/f32", "gemm/bf16", "histogram/u8", "prefix_sum/i32"})
    EXPECT_TRUE(have.contains(want)) << "no shipped CUDA kernel for " << want;
}

TEST(CudaCorpus, HasTheRequiredCheats) {
  auto cases = corpus(source_dir() / "tests/security/cuda", ".cu");
  int cheats = 0, honest = 0;
  for (const auto& c : cases) {
    EXPECT_FALSE(c.op.empty()) << c.file << ": no kwb-expect line";
    if (c.status == "accepted") ++honest;
    else if (c.stage != "compile") ++cheats;
  }
  EXPECT_GE(cheats, 10);
  EXPECT_GE(honest, 1);
}

class ShippedCudaKernelNoDevice : public ::testing::TestWithParam<Shipped> {};

TEST_P(ShippedCudaKernelNoDevice, CompilesThenSaysNoDevice) {
  if (gpu_available()) GTEST_SKIP() << "a CUDA device is present: tests/gpu checks this kernel";
  const auto& k = GetParam();
  auto r = kwb_eval(k.source, "--op " + k.op + " --variant " + k.variant);
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "no_device") << r.verdict["reason"] << r.verdict["diagnostics"].dump();
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.verdict["backend"], "cuda");
  EXPECT_NE(r.verdict["reason"].get<std::string>().find("no CUDA device"), std::string::npos);
  EXPECT_NE(r.verdict["toolchain"].get<std::string>().find("NVRTC"), std::string::npos);
  EXPECT_TRUE(r.verdict["summary"]["stage_ms"].contains("compile"));
  for (const auto& d : r.verdict["diagnostics"]) EXPECT_NE(d["severity"], "error") << d.dump();
  // Issue 19 without a GPU: NVRTC's compiler facts for every config and kernel (ptxas's registers,
  // the PTX's instruction mix), and each config's SASS or why there is none.
  const auto& facts = r.verdict["compiler_facts"];
  ASSERT_FALSE(facts.empty()) << r.verdict.dump();
  for (const auto& c : facts) {
    EXPECT_EQ(c["source"], "nvrtc ptxas -v");
    EXPECT_EQ(c["cubin_sha256"].get<std::string>().size(), 64u);
    EXPECT_TRUE(c["sass_sha256"].is_string() != c["sass_note"].is_string()) << c.dump();
    ASSERT_FALSE(c["kernels"].empty()) << c.dump();
    for (const auto& k : c["kernels"]) {
      EXPECT_GT(k["registers"].get<int>(), 0) << k.dump();
      EXPECT_GT(k["max_threads_per_block"].get<int>(), 0) << k.dump();
      EXPECT_TRUE(k["instructions"].is_object()) << k.dump();
    }
  }
}

std::string shipped_name(const ::testing::TestParamInfo<Shipped>& info) {
  return test_name(info.param.op + "_" + info.param.variant + "_" +
                   std::filesystem::path(info.param.source).stem().string());
}

INSTANTIATE_TEST_SUITE_P(Kernels, ShippedCudaKernelNoDevice, ::testing::ValuesIn(shipped_cuda_kernels()),
                         shipped_name);

class CudaCorpusNoDevice : public ::testing::TestWithParam<Case> {};

TEST_P(CudaCorpusNoDevice, CompileStageVerdictsHoldWithoutAGpu) {
  if (gpu_available()) GTEST_SKIP() << "a CUDA device is present: tests/gpu checks this case";
  const auto& c = GetParam();
  ::setenv("KWB_LIBCLANG", "off", 1);
  auto r = kwb_eval(c.file, "--op " + c.op + " " + c.args);
  ::unsetenv("KWB_LIBCLANG");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.exit_code, 1);
  std::string reason = r.verdict["reason"];
  if (c.stage != "compile") {
    EXPECT_EQ(r.verdict["status"], "no_device") << reason;
    return;
  }
  EXPECT_EQ(r.verdict["status"], c.status) << reason;
  EXPECT_NE(reason.find(c.reason), std::string::npos) << "reason: " << reason;
  if (!c.diagnostic.empty()) {
    bool found = false;
    for (const auto& d : r.verdict["diagnostics"]) {
      std::string loc = d["file"].get<std::string>() + ":" + std::to_string(d["line"].get<int>()) + ":";
      if (loc.find(c.diagnostic) != std::string::npos && d["col"].get<int>() > 0) found = true;
    }
    EXPECT_TRUE(found) << r.verdict["diagnostics"].dump();
  }
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return test_name(std::filesystem::path(info.param.file).stem().string());
}

INSTANTIATE_TEST_SUITE_P(Security, CudaCorpusNoDevice,
                         ::testing::ValuesIn(corpus(source_dir() / "tests/security/cuda", ".cu")), case_name);

TEST(CudaEvalCli, BackendAndUsageErrors) {
  auto bad = kwb_eval((source_dir() / "kernels/vector_add/cuda/vectorized.cu").string(), "--op vector_add --backend tpu");
  EXPECT_EQ(bad.exit_code, 2);
}

}  // namespace
