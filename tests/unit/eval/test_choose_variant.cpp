#include <gtest/gtest.h>

#include <string>

#include "core/candidate.hpp"
#include "eval/choose_variant.hpp"
#include "spec/loader.hpp"

namespace kwb::eval {
namespace {

class ChooseVariant : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = spec::load_spec(KWB_TEST_SOURCE_DIR "/specs/gemm/spec.json");
    ASSERT_TRUE(s.has_value()) << s.error().what();
    m_spec = std::move(*s);
    ASSERT_NE(m_spec.find_variant("f32"), nullptr);
    ASSERT_NE(m_spec.find_variant("bf16"), nullptr);
  }
  core::Candidate candidate(std::string source, std::string variant = "") {
    core::Candidate c;
    c.op = "gemm";
    c.source = std::move(source);
    c.variant = std::move(variant);
    return c;
  }

  core::Spec m_spec;
};

const char* const k_bf16_source =
    "#include <cstdint>\n"
    "extern \"C\" void kwb_gemm_bf16(const uint16_t* a, const uint16_t* b, float* c,\n"
    "                                int64_t m, int64_t n, int64_t k) {}\n";
const char* const k_f32_source =
    "#include <cstdint>\n"
    "extern \"C\" void kwb_gemm_f32(const float* a, const float* b, float* c,\n"
    "                               int64_t m, int64_t n, int64_t k) {}\n";

TEST_F(ChooseVariant, NamedVariant) {
  auto v = choose_variant(m_spec, candidate("", "bf16"));
  ASSERT_TRUE(v.has_value()) << v.error().what();
  EXPECT_EQ(*v, m_spec.find_variant("bf16"));
}

TEST_F(ChooseVariant, NamedVariantWinsOverTheSource) {
  auto v = choose_variant(m_spec, candidate(k_bf16_source, "f32"));
  ASSERT_TRUE(v.has_value()) << v.error().what();
  EXPECT_EQ((*v)->name, "f32");
}

TEST_F(ChooseVariant, UnknownNameIsAnErrorListingVariants) {
  auto v = choose_variant(m_spec, candidate(k_f32_source, "f16"));
  ASSERT_FALSE(v.has_value());
  const std::string msg = v.error().what();
  EXPECT_NE(msg.find("'f16'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("gemm"), std::string::npos) << msg;
  EXPECT_NE(msg.find("f32, bf16"), std::string::npos) << msg;
}

TEST_F(ChooseVariant, SingleVariantNeedsNoName) {
  core::Spec single = m_spec;
  single.variants.erase(single.variants.begin() + 1);  // keep f32 only
  ASSERT_EQ(single.variants.size(), 1u);
  auto v = choose_variant(single, candidate("int unrelated;"));
  ASSERT_TRUE(v.has_value()) << v.error().what();
  EXPECT_EQ(*v, &single.variants[0]);
}

TEST_F(ChooseVariant, InferredFromTheEntrySymbol) {
  auto b = choose_variant(m_spec, candidate(k_bf16_source));
  ASSERT_TRUE(b.has_value()) << b.error().what();
  EXPECT_EQ((*b)->name, "bf16");
  EXPECT_EQ(*b, m_spec.find_variant("bf16"));
  auto f = choose_variant(m_spec, candidate(k_f32_source));
  ASSERT_TRUE(f.has_value()) << f.error().what();
  EXPECT_EQ((*f)->name, "f32");
}

TEST_F(ChooseVariant, AmbiguousSourceIsAnErrorListingVariants) {
  auto v = choose_variant(m_spec, candidate(std::string(k_f32_source) + k_bf16_source));
  ASSERT_FALSE(v.has_value());
  const std::string msg = v.error().what();
  EXPECT_NE(msg.find("several entry points"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--variant"), std::string::npos) << msg;
  EXPECT_NE(msg.find("f32, bf16"), std::string::npos) << msg;
}

TEST_F(ChooseVariant, NoEntrySymbolIsAnErrorListingVariants) {
  auto v = choose_variant(m_spec, candidate("extern \"C\" void kwb_gemm(float*) {}\n"));
  ASSERT_FALSE(v.has_value());
  const std::string msg = v.error().what();
  EXPECT_NE(msg.find("cannot tell which variant"), std::string::npos) << msg;
  EXPECT_NE(msg.find("f32, bf16"), std::string::npos) << msg;
}

}  // namespace
}  // namespace kwb::eval
