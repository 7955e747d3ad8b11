// The contract in a spec's JSON (GET /v1/specs/{op}): the prototype per variant and backend, and
// a template — shipped in the spec folder, or a skeleton from the prototype.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>

#include "spec/loader.hpp"
#include "spec/prototype.hpp"
#include "spec/spec_json.hpp"
#include "spec/templates.hpp"

namespace kwb::spec {
namespace {

namespace fs = std::filesystem;
const fs::path k_specs = fs::path(KWB_TEST_SOURCE_DIR) / "specs";

core::Spec load(const std::string& op) {
  auto s = load_spec(k_specs / op / "spec.json");
  if (!s) throw std::runtime_error(s.error().what());
  return *s;
}

TEST(Contract, PrototypesPerBackend) {
  auto s = load("gemm");
  auto c = contract_json(s);
  EXPECT_EQ(c["bf16"]["cpu"]["prototype"],
            "extern \"C\" void kwb_gemm_bf16(const uint16_t* a, const uint16_t* b, float* c, int64_t m, int64_t n, int64_t k)");
  EXPECT_EQ(c["bf16"]["cuda"]["prototype"],
            "extern \"C\" __global__ void kwb_gemm_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, "
            "long long m, long long n, long long k)");
  EXPECT_EQ(c["f32"]["cuda-launcher"]["prototype"],
            "extern \"C\" void kwb_gemm_f32(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k, "
            "cudaStream_t stream)");
  EXPECT_EQ(c["f32"]["cuda"]["launch_args"], "(a, b, c, m, n, k)");
  EXPECT_EQ(c["f32"]["cpu"]["entry"], "kwb_gemm_f32");
  EXPECT_EQ(c["f32"]["cpu"]["params"][0], (nlohmann::json{{"name", "a"}, {"type", "const float*"}}));
  EXPECT_EQ(c["f32"]["cpu"]["params"][3], (nlohmann::json{{"name", "m"}, {"type", "int64_t"}}));
}

// Every starter op ships a cpu, a cuda and a cuda-launcher template for each variant; a spec
// added without templates (POST /v1/specs, `kwb spec new`) gets skeletons.
TEST(Contract, ShippedTemplatesAndSkeletons) {
  for (const char* op : {"vector_add", "row_sum", "softmax", "rmsnorm", "layernorm", "transpose", "gemm", "histogram",
                         "prefix_sum"}) {
    SCOPED_TRACE(op);
    auto s = load(op);
    for (const auto& v : s.variants) {
      auto cpu = candidate_template(s, v, "cpu");
      EXPECT_TRUE(cpu.complete);
      EXPECT_EQ(cpu.file, "template." + v.name + ".cpp");
      EXPECT_NE(cpu.source.find("extern \"C\" void " + v.entry + "("), std::string::npos);
      auto cuda = candidate_template(s, v, "cuda");
      EXPECT_TRUE(cuda.complete);
      EXPECT_EQ(cuda.file, "template." + v.name + ".cu");
      EXPECT_NE(cuda.source.find("// kwb:launch "), std::string::npos) << cuda.source;
      EXPECT_NE(cuda.source.find("extern \"C\" __global__ void "), std::string::npos) << cuda.source;
      // The launcher's host entry is the contract's prototype, character for character.
      auto launcher = candidate_template(s, v, "cuda-launcher");
      EXPECT_TRUE(launcher.complete) << v.name;
      EXPECT_EQ(launcher.file, "template." + v.name + ".launcher.cu");
      std::string entry = prototype_text(v.entry, entry_params(s, v, "cuda-launcher"), false);
      std::string flat;  // the source with each run of blanks and line breaks read as one blank
      for (char ch : launcher.source)
        if (!(std::isspace(static_cast<unsigned char>(ch)) && !flat.empty() && flat.back() == ' '))
          flat += std::isspace(static_cast<unsigned char>(ch)) ? ' ' : ch;
      EXPECT_NE(flat.find("extern \"C\" " + entry + " {"), std::string::npos) << entry << "\n" << launcher.source;
      EXPECT_EQ(launcher.source.find("// kwb:launch"), std::string::npos) << "a launcher has no launch plan";
    }
  }
  auto s = load("softmax");
  core::Spec bare = s;
  bare.templates.clear();
  auto cuda = candidate_template(bare, bare.variants[0], "cuda");
  EXPECT_FALSE(cuda.complete);
  EXPECT_NE(cuda.source.find("// kwb:launch kwb_softmax_f32 grid=(1) block=(1) args=(x, y, rows, cols)"), std::string::npos)
      << cuda.source;
  EXPECT_NE(cuda.source.find("extern \"C\" __global__ void kwb_softmax_f32(const float* x, float* y, long long rows, long long cols)"),
            std::string::npos)
      << cuda.source;
  EXPECT_EQ(contract_json(bare)["f32"]["cuda"]["template"]["file"], nullptr);
}

TEST(Contract, TemplateFileNames) {
  EXPECT_EQ(template_role("template.f32.cpp"), (std::pair<std::string, std::string>{"cpu", "f32"}));
  EXPECT_EQ(template_role("template.bf16.cu"), (std::pair<std::string, std::string>{"cuda", "bf16"}));
  EXPECT_EQ(template_role("template.f32.launcher.cu"), (std::pair<std::string, std::string>{"cuda-launcher", "f32"}));
  EXPECT_EQ(template_role("template.cpp"), std::nullopt);
  EXPECT_EQ(template_role("template.a.b.cpp"), std::nullopt);
  EXPECT_EQ(template_file_name("cuda-launcher", "u8"), "template.u8.launcher.cu");
}

// A template for a variant the spec lacks, or of no known form, is a load error naming the file.
TEST(Contract, BadTemplateFilesAreLoadErrors) {
  char tmpl[] = "/tmp/kwb-contract-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  fs::path dir = tmpl;
  fs::copy(k_specs / "vector_add", dir / "vector_add");
  std::ofstream(dir / "vector_add" / "template.f64.cpp") << "// no such variant\n";
  auto r = load_spec(dir / "vector_add" / "spec.json");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().what().find("template.f64.cpp"), std::string::npos) << r.error().what();
  EXPECT_NE(r.error().what().find("no variant 'f64' in the spec (variants: f32)"), std::string::npos) << r.error().what();
  fs::remove(dir / "vector_add" / "template.f64.cpp");
  std::ofstream(dir / "vector_add" / "template.f32.cc") << "//\n";
  r = load_spec(dir / "vector_add" / "spec.json");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().what().find("not a template name"), std::string::npos) << r.error().what();
  fs::remove_all(dir);
}

// `kwb specs OP --json` output (with its contract) still loads as a spec, and the contract does
// not change what the spec means.
TEST(Contract, SpecJsonWithContractLoadsAgainWithTheSameMeaning) {
  auto s = load("vector_add");
  auto j = to_json(s);
  ASSERT_TRUE(j.contains("contract"));
  auto again = parse_spec(j.dump(), "vector_add.json");
  ASSERT_TRUE(again.has_value()) << again.error().what();
  nlohmann::json without = j;
  without.erase("contract");
  auto plain = parse_spec(without.dump(), "vector_add.json");
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(again->digest, plain->digest);
}

}  // namespace
}  // namespace kwb::spec
