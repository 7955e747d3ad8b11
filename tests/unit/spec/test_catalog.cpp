#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "spec/digest.hpp"
#include "spec/loader.hpp"

namespace kwb::spec {
namespace {

namespace fs = std::filesystem;

// A fresh temporary folder, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    m_path = fs::temp_directory_path() /
             ("kwb_test_catalog_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_path);
    fs::create_directories(m_path);
  }
  ~TempDir() {
    std::error_code ec;
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

std::string shipped_softmax() {
  std::ifstream in(KWB_TEST_SOURCE_DIR "/specs/softmax/spec.json");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(Catalog, ShippedSpecsLoad) {
  auto c = Catalog::load(KWB_TEST_SOURCE_DIR "/specs");
  ASSERT_TRUE(c.has_value()) << c.error().what();
  const core::Spec* s = c->find("softmax");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->op, "softmax");
  EXPECT_EQ(c->find("no_such_op"), nullptr);
  auto ops = c->ops();
  EXPECT_NE(std::find(ops.begin(), ops.end(), "softmax"), ops.end());
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
}

TEST(Catalog, FolderNameMustEqualOp) {
  TempDir dir;
  write(dir.path() / "soft_max" / "spec.json", shipped_softmax());
  auto c = Catalog::load(dir.path());
  ASSERT_FALSE(c.has_value());
  EXPECT_EQ(c.error().where, (dir.path() / "soft_max" / "spec.json").string() + ": op");
  EXPECT_NE(c.error().message.find("\"softmax\" must equal the name of its folder, \"soft_max\""), std::string::npos)
      << c.error().message;
}

TEST(Catalog, FoldersWithoutSpecAreSkipped) {
  TempDir dir;
  write(dir.path() / "softmax" / "spec.json", shipped_softmax());
  fs::create_directories(dir.path() / "not_an_op");
  write(dir.path() / "CMakeLists.txt", "# not a spec\n");
  auto c = Catalog::load(dir.path());
  ASSERT_TRUE(c.has_value()) << c.error().what();
  EXPECT_EQ(c->ops(), (std::vector<std::string>{"softmax"}));
}

TEST(Catalog, AllErrorsAreReported) {
  TempDir dir;
  write(dir.path() / "a" / "spec.json", "{");
  write(dir.path() / "b" / "spec.json", shipped_softmax());
  auto c = Catalog::load(dir.path());
  ASSERT_FALSE(c.has_value());
  EXPECT_EQ(c.error().where, dir.path().string());
  const std::string& m = c.error().message;
  EXPECT_NE(m.find("2 spec files are invalid"), std::string::npos) << m;
  EXPECT_NE(m.find((dir.path() / "a" / "spec.json").string() + ": line 1, column 2: invalid JSON"), std::string::npos)
      << m;
  EXPECT_NE(m.find((dir.path() / "b" / "spec.json").string() + ": op"), std::string::npos) << m;
}

TEST(Catalog, EmptyOrMissingFolderIsAnError) {
  TempDir dir;
  auto empty = Catalog::load(dir.path());
  ASSERT_FALSE(empty.has_value());
  EXPECT_NE(empty.error().message.find("no spec files found"), std::string::npos);
  auto missing = Catalog::load(dir.path() / "nope");
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().what().find("not a directory"), std::string::npos);
}


// --- Several sources, versions, run-time additions (docs/specs.md "Where specs live") ---

std::string shipped_vector_add() {
  std::ifstream in(KWB_TEST_SOURCE_DIR "/specs/vector_add/spec.json");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// <root>/vector_add/{spec.json, reference.cpp}.
void write_vector_add(const fs::path& root, const std::string& spec, const std::string& reference = "// ref v1\n") {
  write(root / "vector_add" / "spec.json", spec);
  write(root / "vector_add" / "reference.cpp", reference);
}

core::Spec parsed(const std::string& text, const std::string& file) {
  auto s = parse_spec(text, file);
  EXPECT_TRUE(s.has_value()) << s.error().what();
  return s ? *s : core::Spec{};
}

TEST(SpecDigest, IgnoresDescriptiveTextAndCountsTheReference) {
  const std::string base = shipped_vector_add();
  auto d = [](const std::string& text, const std::string& ref) {
    auto r = meaning_digest(text, {{"reference.cpp", ref}}, "spec.json");
    EXPECT_TRUE(r.has_value()) << r.error().what();
    return r.value_or("");
  };
  const std::string original = d(base, "r");
  EXPECT_EQ(original.size(), 64u);
  // Comments, the summary, distribution notes and workload labels say nothing about the meaning.
  std::string descriptive = replaced(base, "\"summary\": \"Elementwise", "\"summary\": \"Reworded: elementwise");
  descriptive = replaced(descriptive, "operands 6 orders of magnitude apart", "operands far apart");
  descriptive = replaced(descriptive, "\"label\": \"1M elements", "\"label\": \"one million elements");
  descriptive = "// a new comment\n" + descriptive;
  EXPECT_EQ(d(descriptive, "r"), original);
  // A tolerance, a distribution, a workload or the reference change it.
  EXPECT_NE(d(replaced(base, "\"rtol\": 1e-6", "\"rtol\": 1e-5"), "r"), original);
  EXPECT_NE(d(replaced(base, "\"lo\": -1e6", "\"lo\": -1e5"), "r"), original);
  EXPECT_NE(d(replaced(base, "{\"name\": \"n7\", \"params\": {\"n\": 7}},", ""), "r"), original);
  EXPECT_NE(d(base, "r2"), original);
  // Number spelling is not meaning: 1e-6 == 0.000001.
  EXPECT_EQ(d(replaced(base, "\"rtol\": 1e-6", "\"rtol\": 0.000001"), "r"), original);
}

TEST(Catalog, LoadedSpecsCarryTheDigestOfTheirReference) {
  TempDir dir;
  write_vector_add(dir.path() / "a", shipped_vector_add(), "// one\n");
  write_vector_add(dir.path() / "b", shipped_vector_add(), "// two\n");
  auto a = Catalog::load(dir.path() / "a");
  auto b = Catalog::load(dir.path() / "b");
  ASSERT_TRUE(a && b);
  EXPECT_NE(a->find("vector_add")->digest, b->find("vector_add")->digest);
}

TEST(Catalog, SameVersionInTwoSourcesMustMeanTheSameAndTheFirstServes) {
  TempDir dir;
  const std::string base = shipped_vector_add();
  write_vector_add(dir.path() / "extra", replaced(base, "Elementwise sum", "Elementwise sum (extra copy)"));
  write_vector_add(dir.path() / "shipped", base);
  auto c = Catalog::load({{dir.path() / "extra"}, {dir.path() / "shipped"}});
  ASSERT_TRUE(c.has_value()) << c.error().what();
  const core::Spec* s = c->find("vector_add");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->file, dir.path() / "extra" / "vector_add" / "spec.json");
  EXPECT_NE(s->summary.find("extra copy"), std::string::npos);
  EXPECT_EQ(c->versions("vector_add"), (std::vector<int>{1}));
}

TEST(Catalog, SameVersionWithAnotherMeaningIsAnErrorNamingBothFiles) {
  TempDir dir;
  const std::string base = shipped_vector_add();
  write_vector_add(dir.path() / "extra", replaced(base, "\"rtol\": 1e-6", "\"rtol\": 1e-3"));
  write_vector_add(dir.path() / "shipped", base);
  auto c = Catalog::load({{dir.path() / "extra"}, {dir.path() / "shipped"}});
  ASSERT_FALSE(c.has_value());
  const std::string m = c.error().what();
  EXPECT_NE(m.find((dir.path() / "extra" / "vector_add" / "spec.json").string()), std::string::npos) << m;
  EXPECT_NE(m.find((dir.path() / "shipped" / "vector_add" / "spec.json").string()), std::string::npos) << m;
  EXPECT_NE(m.find("version 1 differs in meaning"), std::string::npos) << m;
  EXPECT_NE(m.find("\"version\": 2"), std::string::npos) << m;

  // A changed reference alone is a change of meaning too.
  write_vector_add(dir.path() / "extra", base, "// another reference\n");
  auto r = Catalog::load({{dir.path() / "extra"}, {dir.path() / "shipped"}});
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().what().find("differs in meaning"), std::string::npos) << r.error().what();
}

TEST(Catalog, TheHighestVersionIsCurrentWhicheverSourceHoldsIt) {
  TempDir dir;
  const std::string base = shipped_vector_add();
  write_vector_add(dir.path() / "extra", base);  // v1 first in precedence
  write_vector_add(dir.path() / "shipped", replaced(replaced(base, "\"version\": 1", "\"version\": 2"),
                                                    "\"rtol\": 1e-6", "\"rtol\": 2e-6"));
  auto c = Catalog::load({{dir.path() / "extra"}, {dir.path() / "library", true}, {dir.path() / "shipped"}});
  ASSERT_TRUE(c.has_value()) << c.error().what();
  ASSERT_NE(c->find("vector_add"), nullptr);
  EXPECT_EQ(c->find("vector_add")->version, 2);
  ASSERT_NE(c->find("vector_add", 1), nullptr);
  EXPECT_EQ(c->find("vector_add", 1)->file, dir.path() / "extra" / "vector_add" / "spec.json");
  EXPECT_EQ(c->find("vector_add", 3), nullptr);
  EXPECT_EQ(c->versions("vector_add"), (std::vector<int>{1, 2}));
}

TEST(Catalog, AnOptionalSourceMayBeMissingARequiredOneMayNot) {
  TempDir dir;
  write_vector_add(dir.path() / "shipped", shipped_vector_add());
  EXPECT_TRUE(Catalog::load({{dir.path() / "nope", true}, {dir.path() / "shipped"}}).has_value());
  auto c = Catalog::load({{dir.path() / "nope"}, {dir.path() / "shipped"}});
  ASSERT_FALSE(c.has_value());
  EXPECT_NE(c.error().what().find("not a directory"), std::string::npos) << c.error().what();
}

TEST(Catalog, ExplicitFoldersNeedNotBeNamedAfterTheirOp) {
  TempDir dir;
  write_vector_add(dir.path() / "cache", shipped_vector_add());
  fs::rename(dir.path() / "cache" / "vector_add", dir.path() / "cache" / "0123abcd");
  auto c = Catalog::load({{{}, true, {{"vector_add", dir.path() / "cache" / "0123abcd"}}}});
  ASSERT_TRUE(c.has_value()) << c.error().what();
  EXPECT_NE(c->find("vector_add"), nullptr);
  auto wrong = Catalog::load({{{}, true, {{"softmax", dir.path() / "cache" / "0123abcd"}}}});
  ASSERT_FALSE(wrong.has_value());
  EXPECT_NE(wrong.error().what().find("must equal the name of its folder, \"softmax\""), std::string::npos);
}

TEST(Catalog, AddKeepsEveryPointerAlive) {
  Catalog c;
  const std::string base = shipped_vector_add();
  ASSERT_EQ(c.add(parsed(base, "a/spec.json")), Catalog::Added::added);
  const core::Spec* v1 = c.find("vector_add");
  ASSERT_NE(v1, nullptr);
  // The same meaning again: unchanged (or replaced on request: a descriptive edit).
  EXPECT_EQ(c.add(parsed(base, "b/spec.json")), Catalog::Added::unchanged);
  EXPECT_EQ(c.find("vector_add"), v1);
  auto edit = parsed(replaced(base, "Elementwise sum", "Elementwise sum, edited"), "c/spec.json");
  EXPECT_EQ(c.add(edit, /*replace=*/true), Catalog::Added::replaced);
  EXPECT_NE(c.find("vector_add"), v1);
  EXPECT_EQ(v1->file, "a/spec.json");  // still alive for whoever holds it
  // Another meaning at the same version: refused, naming both files.
  auto changed = c.add(parsed(replaced(base, "\"rtol\": 1e-6", "\"rtol\": 1e-2"), "d/spec.json"));
  ASSERT_FALSE(changed.has_value());
  EXPECT_NE(changed.error().what().find("d/spec.json"), std::string::npos);
  EXPECT_NE(changed.error().what().find("c/spec.json"), std::string::npos) << changed.error().what();
  // A new version becomes current; the old one stays findable.
  const uint64_t before = c.generation();
  EXPECT_EQ(c.add(parsed(replaced(base, "\"version\": 1", "\"version\": 2"), "e/spec.json")), Catalog::Added::added);
  EXPECT_GT(c.generation(), before);
  EXPECT_EQ(c.find("vector_add")->version, 2);
  EXPECT_EQ(c.find("vector_add", 1)->file, "c/spec.json");
}

TEST(Catalog, ConcurrentAddsAndFinds) {
  Catalog c;
  const std::string base = shipped_vector_add();
  ASSERT_TRUE(c.add(parsed(base, "v1/spec.json")).has_value());
  constexpr int k_versions = 60;
  std::vector<core::Spec> newer;
  for (int v = 2; v <= k_versions; ++v)
    newer.push_back(parsed(replaced(base, "\"version\": 1", "\"version\": " + std::to_string(v)),
                           "v" + std::to_string(v) + "/spec.json"));
  std::atomic<bool> done{false};
  std::atomic<int> bad{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t)
    readers.emplace_back([&] {
      int last = 0;
      std::vector<const core::Spec*> held;
      while (!done.load()) {
        const core::Spec* s = c.find("vector_add");
        // Versions only go up, and every pointer once handed out still reads as itself.
        if (!s || s->op != "vector_add" || s->version < last) ++bad;
        last = s ? s->version : last;
        held.push_back(s);
        for (const core::Spec* h : {held.front(), held[held.size() / 2]})
          if (h->file.string() != "v" + std::to_string(h->version) + "/spec.json") ++bad;
        if (c.ops() != std::vector<std::string>{"vector_add"}) ++bad;
      }
    });
  std::thread writer([&] {
    for (auto& s : newer)
      if (!c.add(std::move(s))) ++bad;
    done = true;
  });
  writer.join();
  for (auto& r : readers) r.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(c.find("vector_add")->version, k_versions);
  EXPECT_EQ(c.versions("vector_add").size(), size_t(k_versions));
}

}  // namespace
}  // namespace kwb::spec
