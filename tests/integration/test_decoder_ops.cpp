// The shipped decoder-layer ops of issue #37 (docs/specs.md "Shipped model ops"): fused_add_rmsnorm,
// silu_mul, embedding and rope. Their CPU incumbents (kernels/<op>/cpu) are accepted, and wrong
// kernels (tests/integration/decoder_op_cases) are `incorrect` for the reason each was written to
// show: a scalar ignored, an output not written, an index or a convention off.
#include <gtest/gtest.h>

#include "support.hpp"

namespace {

using namespace kwb::test;

std::filesystem::path cases() { return source_dir() / "tests" / "integration" / "decoder_op_cases"; }

struct Wrong {
  const char* file;
  const char* op;
  const char* reason;  // a substring of the verdict's reason
};

const Wrong k_wrong[] = {
    {"fused_add_rmsnorm_fixed_eps.cpp", "fused_add_rmsnorm", "output y: "},
    {"fused_add_rmsnorm_no_residual_out.cpp", "fused_add_rmsnorm", "output residual_out: "},
    {"fused_add_rmsnorm_norms_the_old_residual.cpp", "fused_add_rmsnorm", "output y: "},
    {"silu_mul_swapped_halves.cpp", "silu_mul", "output out: "},
    {"silu_mul_interleaved.cpp", "silu_mul", "output out: "},
    {"silu_mul_sigmoid_only.cpp", "silu_mul", "output out: "},
    {"embedding_id_off_by_one.cpp", "embedding", "output out: "},
    {"embedding_ids_as_uint16.cpp", "embedding", "output out: "},
    {"embedding_table_transposed.cpp", "embedding", "output out: "},
    {"rope_fixed_theta.cpp", "rope", "output "},
    {"rope_interleaved_pairs.cpp", "rope", "output q_out: "},
    {"rope_token_index_as_position.cpp", "rope", "output q_out: "},
};

const char* const k_incumbents[][2] = {
    {"kernels/fused_add_rmsnorm/cpu/lanes.cpp", "fused_add_rmsnorm"},
    {"kernels/silu_mul/cpu/poly_exp.cpp", "silu_mul"},
    {"kernels/embedding/cpu/row_copy.cpp", "embedding"},
    {"kernels/rope/cpu/chunked.cpp", "rope"},
};

class WrongDecoderKernel : public ::testing::TestWithParam<Wrong> {};

TEST_P(WrongDecoderKernel, IsIncorrect) {
  const auto& w = GetParam();
  auto r = kwb_eval_json((cases() / w.file).string(), std::string("--op ") + w.op + " --no-bench");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "incorrect") << r.verdict["reason"];
  EXPECT_NE(r.verdict["reason"].get<std::string>().find(w.reason), std::string::npos) << r.verdict["reason"];
}

INSTANTIATE_TEST_SUITE_P(DecoderOps, WrongDecoderKernel, ::testing::ValuesIn(k_wrong), [](const auto& info) {
  std::string n = std::filesystem::path(info.param.file).stem().string();
  for (auto& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
});

TEST(DecoderOps, CpuIncumbentsAreAcceptedOnTheSameChecks) {
  for (const auto& [file, op] : k_incumbents) {
    SCOPED_TRACE(file);
    auto r = kwb_eval_json((source_dir() / file).string(), std::string("--op ") + op + " --no-bench");
    ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
    EXPECT_EQ(r.verdict["status"], "accepted") << r.verdict["reason"];
  }
}

TEST(DecoderOps, IdsBeyond65535AreRead) {
  // Ids kept as 16-bit values are right on every published vocabulary but Llama 3's 128256.
  auto r = kwb_eval_json((cases() / "embedding_ids_as_uint16.cpp").string(), "--op embedding --no-bench");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  for (const auto& w : r.verdict["workloads"]) {
    if (w["kind"] != "test" || w["drawn"].get<bool>()) continue;
    EXPECT_EQ(w["correct"].get<bool>(), w["name"] != "5x128256x3") << w["name"];
  }
}

TEST(DecoderOps, TheEpsScalarReachesTheKernel) {
  // The kernel that takes eps as 1e-6 is right exactly where the workload's eps is 1e-6.
  auto r = kwb_eval_json((cases() / "fused_add_rmsnorm_fixed_eps.cpp").string(), "--op fused_add_rmsnorm --no-bench");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  for (const auto& w : r.verdict["workloads"]) {
    const std::string name = w["name"];
    if (name == "3x31" || name == "7x1000") {
      EXPECT_FALSE(w["correct"].get<bool>()) << name << ": eps 1e-5";
    } else if (name == "1x7" || name == "17x33" || name == "5x127") {
      EXPECT_TRUE(w["correct"].get<bool>()) << name << ": eps 1e-6";
    }
  }
}

}  // namespace
