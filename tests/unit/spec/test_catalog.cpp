#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

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

}  // namespace
}  // namespace kwb::spec
