// The optional "baselines" section of spec.json: shipped vendor baselines and validation errors.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "spec/loader.hpp"
#include "spec/spec_json.hpp"

namespace kwb::spec {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

// A fresh temporary folder, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    m_path = fs::temp_directory_path() / ("kwb_test_baselines_" + std::to_string(::getpid()) + "_" +
                                          info->test_suite_name() + "_" + info->name());
    fs::remove_all(m_path);
    fs::create_directories(m_path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(m_path / "demo" / "locked.cu", fs::perms::owner_all, ec);
    fs::remove_all(m_path, ec);
  }
  const fs::path& path() const { return m_path; }

 private:
  fs::path m_path;
};

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

std::string entry_definition(const std::string& entry) { return "extern \"C\" void " + entry + "("; }

struct Shipped {
  const char* op;
  const char* name;
  const char* file;
  std::vector<std::string> variants;
  std::vector<std::string> flags;
};

TEST(Baselines, ShippedSpecsLoadWithTheirBaselines) {
  const std::vector<Shipped> shipped = {
      {"gemm", "cublas", "baseline_cublas.cu", {"f32", "bf16"}, {"-lcublas"}},
      {"row_sum", "cub", "baseline_cub.cu", {"f32"}, {}},
      {"prefix_sum", "cub", "baseline_cub.cu", {"i32"}, {}},
      {"histogram", "cub", "baseline_cub.cu", {"u8"}, {}},
  };
  for (const auto& want : shipped) {
    SCOPED_TRACE(want.op);
    auto s = load_spec(fs::path(KWB_TEST_SOURCE_DIR) / "specs" / want.op / "spec.json");
    ASSERT_TRUE(s.has_value()) << s.error().what();
    ASSERT_EQ(s->baselines.size(), 1u);
    const core::Baseline& b = s->baselines[0];
    EXPECT_EQ(b.name, want.name);
    EXPECT_EQ(b.file, want.file);
    EXPECT_EQ(b.backend, "cuda-launcher");
    EXPECT_EQ(b.variants, want.variants);
    EXPECT_EQ(b.flags, want.flags);
    EXPECT_FALSE(b.note.empty());
    ASSERT_FALSE(b.source.empty());
    // The loaded source is the file, and it defines every listed variant's entry symbol.
    std::ifstream in(fs::path(KWB_TEST_SOURCE_DIR) / "specs" / want.op / want.file);
    EXPECT_EQ(b.source, std::string(std::istreambuf_iterator<char>(in), {}));
    for (const auto& v : b.variants) {
      const core::Variant* var = s->find_variant(v);
      ASSERT_NE(var, nullptr) << v;
      EXPECT_NE(b.source.find(entry_definition(var->entry)), std::string::npos) << var->entry;
    }
  }
}

TEST(Baselines, SpecsWithoutTheFieldHaveNone) {
  auto s = load_spec(KWB_TEST_SOURCE_DIR "/specs/softmax/spec.json");
  ASSERT_TRUE(s.has_value()) << s.error().what();
  EXPECT_TRUE(s->baselines.empty());
  EXPECT_FALSE(to_json(*s).contains("baselines"));
}

// Two variants, so that variants[1] can be wrong.
const char* const k_fixture = R"json({
  "op": "demo",
  "version": 1,
  "summary": "Test fixture.",
  "params": ["n"],
  "tensors": [{"name": "x", "role": "in", "shape": ["n"]}, {"name": "y", "role": "out", "shape": ["n"]}],
  "variants": [
    {"name": "f32", "entry": "kwb_demo_f32", "dtypes": {"x": "f32", "y": "f32"},
     "tolerance": {"y": {"atol": 0, "rtol": 0}}, "roofline": {"bytes": "8*n", "flops": "n"}},
    {"name": "bf16", "entry": "kwb_demo_bf16", "dtypes": {"x": "bf16", "y": "f32"},
     "tolerance": {"y": {"atol": 0, "rtol": 0}}, "roofline": {"bytes": "6*n", "flops": "n"}}
  ],
  "distributions": [{"name": "u", "tensors": {"x": {"kind": "uniform", "lo": -1, "hi": 1}}}],
  "workloads": {"test": [{"name": "n7", "params": {"n": 7}}], "bench": [{"name": "n64", "params": {"n": 64}}]},
  "baselines": [
    {"name": "vendor", "file": "baseline_vendor.cu", "backend": "cuda-launcher", "variants": ["f32", "bf16"],
     "flags": ["-lcublas"], "note": "a vendor library"}
  ]
})json";

const char* const k_source = "extern \"C\" void kwb_demo_f32(const float*, float*, long, void*) {}\n";

// <dir>/demo/spec.json from `j`, with baseline_vendor.cu next to it.
fs::path write_fixture(const fs::path& dir, const Json& j) {
  const fs::path spec = dir / "demo" / "spec.json";
  write(spec, j.dump(2));
  write(dir / "demo" / "baseline_vendor.cu", k_source);
  return spec;
}

TEST(Baselines, FixtureLoads) {
  TempDir dir;
  Json j = Json::parse(k_fixture);
  auto s = load_spec(write_fixture(dir.path(), j));
  ASSERT_TRUE(s.has_value()) << s.error().what();
  ASSERT_EQ(s->baselines.size(), 1u);
  EXPECT_EQ(s->baselines[0].source, k_source);
  EXPECT_EQ(s->baselines[0].variants, (std::vector<std::string>{"f32", "bf16"}));
  EXPECT_EQ(s->baselines[0].flags, (std::vector<std::string>{"-lcublas"}));
  EXPECT_EQ(s->baselines[0].note, "a vendor library");

  // The public view lists the baseline but not its source.
  nlohmann::json pub = to_json(*s);
  ASSERT_TRUE(pub.contains("baselines"));
  EXPECT_EQ(pub["baselines"][0]["name"], "vendor");
  EXPECT_EQ(pub["baselines"][0]["file"], "baseline_vendor.cu");
  EXPECT_EQ(pub["baselines"][0]["variants"], nlohmann::json::array({"f32", "bf16"}));
  EXPECT_FALSE(pub["baselines"][0].contains("source"));
}

TEST(Baselines, OptionalFieldsAndSubfolders) {
  TempDir dir;
  Json j = Json::parse(k_fixture);
  j["baselines"][0].erase("flags");
  j["baselines"][0].erase("note");
  j["baselines"][0]["file"] = "vendor/gemm.cu";
  const fs::path spec = write_fixture(dir.path(), j);
  write(dir.path() / "demo" / "vendor" / "gemm.cu", "// x\n");
  auto s = load_spec(spec);
  ASSERT_TRUE(s.has_value()) << s.error().what();
  EXPECT_TRUE(s->baselines[0].flags.empty());
  EXPECT_TRUE(s->baselines[0].note.empty());
  EXPECT_EQ(s->baselines[0].source, "// x\n");

  j["baselines"] = Json::array();
  write(spec, j.dump());
  auto none = load_spec(spec);
  ASSERT_TRUE(none.has_value()) << none.error().what();
  EXPECT_TRUE(none->baselines.empty());
}

struct BadCase {
  const char* name;
  std::function<void(Json&, const fs::path& spec_dir)> mutate;
  const char* path;     // the JSON path expected after "<file>: "
  const char* message;  // expected substring of the message
};

Json& b0(Json& j) { return j["baselines"][0]; }

const std::vector<BadCase> k_bad = {
    {"not an array", [](Json& j, auto&) { j["baselines"] = "cublas"; }, "baselines",
     "expected array, got string \"cublas\""},
    {"unknown field", [](Json& j, auto&) { b0(j)["sources"] = "x.cu"; }, "baselines[0].sources",
     "unknown field 'sources' (expected one of: name, file, backend, variants, flags, note)"},
    {"missing name", [](Json& j, auto&) { b0(j).erase("name"); }, "baselines[0].name", "missing required field"},
    {"empty name", [](Json& j, auto&) { b0(j)["name"] = ""; }, "baselines[0].name",
     "expected a name of the form [A-Za-z0-9_.-]+"},
    {"duplicate name", [](Json& j, auto&) { j["baselines"].push_back(b0(j)); }, "baselines[1].name",
     "duplicate baseline name 'vendor' (also baselines[0])"},
    {"missing backend", [](Json& j, auto&) { b0(j).erase("backend"); }, "baselines[0].backend",
     "missing required field"},
    {"wrong backend", [](Json& j, auto&) { b0(j)["backend"] = "cuda"; }, "baselines[0].backend",
     "expected \"cuda-launcher\" (the only form whose host code can call a vendor library), got \"cuda\""},
    {"missing variants", [](Json& j, auto&) { b0(j).erase("variants"); }, "baselines[0].variants",
     "missing required field"},
    {"empty variants", [](Json& j, auto&) { b0(j)["variants"] = Json::array(); }, "baselines[0].variants",
     "must not be empty"},
    {"unknown variant", [](Json& j, auto&) { b0(j)["variants"][1] = "f16"; }, "baselines[0].variants[1]",
     "unknown variant 'f16' (variants: f32, bf16)"},
    {"duplicate variant", [](Json& j, auto&) { b0(j)["variants"][1] = "f32"; }, "baselines[0].variants[1]",
     "duplicate variant 'f32' (also baselines[0].variants[0])"},
    {"variant not a string", [](Json& j, auto&) { b0(j)["variants"][0] = 32; }, "baselines[0].variants[0]",
     "expected string, got number 32"},
    {"flags not an array", [](Json& j, auto&) { b0(j)["flags"] = "-lcublas"; }, "baselines[0].flags",
     "expected array, got string \"-lcublas\""},
    {"flag not a string", [](Json& j, auto&) { b0(j)["flags"][0] = 1; }, "baselines[0].flags[0]",
     "expected string, got number 1"},
    {"flag without dash", [](Json& j, auto&) { b0(j)["flags"].push_back("cublas"); }, "baselines[0].flags[1]",
     "expected an nvcc option starting with '-', got \"cublas\""},
    {"two flags in one string", [](Json& j, auto&) { b0(j)["flags"][0] = "-lcublas -lcublasLt"; },
     "baselines[0].flags[0]", "contains whitespace: give one argument per array element"},
    {"note not a string", [](Json& j, auto&) { b0(j)["note"] = Json::array(); }, "baselines[0].note",
     "expected string, got array"},
    {"missing file", [](Json& j, auto&) { b0(j).erase("file"); }, "baselines[0].file", "missing required field"},
    {"file not found", [](Json& j, auto&) { b0(j)["file"] = "baseline_other.cu"; }, "baselines[0].file",
     "\"baseline_other.cu\": no such file next to the spec"},
    {"absolute file", [](Json& j, auto&) { b0(j)["file"] = "/etc/x.cu"; }, "baselines[0].file",
     "\"/etc/x.cu\" is absolute: give a path relative to the spec's folder"},
    {"file leaves the folder",
     [](Json& j, const fs::path& d) {
       write(d.parent_path() / "outside.cu", k_source);
       b0(j)["file"] = "../outside.cu";
     },
     "baselines[0].file", "\"../outside.cu\" leaves the spec's folder: '..' is not allowed"},
    {"dot-dot inside the path", [](Json& j, auto&) { b0(j)["file"] = "sub/../baseline_vendor.cu"; },
     "baselines[0].file", "'..' is not allowed"},
    {"symlink out of the folder",
     [](Json& j, const fs::path& d) {
       write(d.parent_path() / "outside.cu", k_source);
       fs::create_symlink(d.parent_path() / "outside.cu", d / "link.cu");
       b0(j)["file"] = "link.cu";
     },
     "baselines[0].file", "outside the spec's folder"},
    {"not a .cu file",
     [](Json& j, const fs::path& d) {
       write(d / "baseline.cpp", k_source);
       b0(j)["file"] = "baseline.cpp";
     },
     "baselines[0].file", "\"baseline.cpp\": a cuda-launcher source must be a .cu file"},
    {"directory", [](Json& j, const fs::path& d) {
       fs::create_directories(d / "dir.cu");
       b0(j)["file"] = "dir.cu";
     },
     "baselines[0].file", "\"dir.cu\" is not a regular file"},
    {"empty file",
     [](Json& j, const fs::path& d) {
       write(d / "empty.cu", "");
       b0(j)["file"] = "empty.cu";
     },
     "baselines[0].file", "\"empty.cu\" is empty"},
    {"error in the second baseline",
     [](Json& j, auto&) {
       Json second = b0(j);
       second["name"] = "other";
       second["variants"] = Json::array({"bf16", "f64"});
       j["baselines"].push_back(second);
     },
     "baselines[1].variants[1]", "unknown variant 'f64'"},
};

TEST(Baselines, BadBaselinesNameFilePathAndReason) {
  for (const auto& c : k_bad) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    Json j = Json::parse(k_fixture);
    const fs::path spec = write_fixture(dir.path(), j);
    c.mutate(j, spec.parent_path());
    write(spec, j.dump(2));
    auto s = load_spec(spec);
    ASSERT_FALSE(s.has_value());
    EXPECT_EQ(s.error().where, spec.string() + ": " + c.path);
    EXPECT_NE(s.error().message.find(c.message), std::string::npos) << s.error().message;
  }
}

TEST(Baselines, UnreadableFile) {
  TempDir dir;
  Json j = Json::parse(k_fixture);
  b0(j)["file"] = "locked.cu";
  const fs::path spec = write_fixture(dir.path(), j);
  const fs::path locked = spec.parent_path() / "locked.cu";
  write(locked, k_source);
  fs::permissions(locked, fs::perms::none);
  if (std::ifstream(locked).good()) GTEST_SKIP() << "running as a user who reads mode-000 files (root)";
  auto s = load_spec(spec);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().where, spec.string() + ": baselines[0].file");
  EXPECT_NE(s.error().message.find("cannot open"), std::string::npos) << s.error().message;
}

TEST(Baselines, ParsedTextResolvesFilesNextToTheGivenPath) {
  // parse_spec reads baseline files relative to the `file` it is given.
  TempDir dir;
  Json j = Json::parse(k_fixture);
  const fs::path spec = write_fixture(dir.path(), j);
  auto s = parse_spec(j.dump(), spec);
  ASSERT_TRUE(s.has_value()) << s.error().what();
  EXPECT_EQ(s->baselines[0].source, k_source);
  auto elsewhere = parse_spec(j.dump(), dir.path() / "nowhere" / "spec.json");
  ASSERT_FALSE(elsewhere.has_value());
  EXPECT_EQ(elsewhere.error().where, (dir.path() / "nowhere" / "spec.json").string() + ": baselines[0].file");
}

}  // namespace
}  // namespace kwb::spec
