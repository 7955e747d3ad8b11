// check_folder / check_path: loader errors split into file and field, folder and catalog mode,
// the skeleton of `kwb spec new` passing every check with a reference that copies.
#include <gtest/gtest.h>

#include <fstream>

#include "spec_text.hpp"
#include "speccheck/checker.hpp"
#include "speccheck/skeleton.hpp"
#include "temp_dir.hpp"

namespace kwb::speccheck::test {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

// A reference opened for the skeleton: the copy its reference.cpp computes.
ReferenceAccess skeleton_copy(int* opened) {
  ReferenceAccess access;
  access.open = [opened](const core::Spec&) -> util::Result<std::shared_ptr<eval::Reference>> {
    ++*opened;
    return std::make_shared<LambdaReference>([](const core::ReferenceArgs& a) {
      const float* x = a.in<float>("x");
      for (int64_t i = 0; i < a.param("rows") * a.param("cols"); ++i) a.out("y")[i] = x[i];
    });
  };
  return access;
}

TEST(SpecCheck, TheSkeletonLoadsAndPassesEveryCheck) {
  kwb::test::TempDir tmp;
  auto dir = write_skeleton(tmp.path(), "fused_thing");
  ASSERT_TRUE(dir.has_value()) << dir.error().what();
  auto spec = spec::load_spec(*dir / "spec.json");
  ASSERT_TRUE(spec.has_value()) << spec.error().what();
  EXPECT_EQ(spec->op, "fused_thing");
  EXPECT_EQ(spec->variants.at(0).entry, "kwb_fused_thing_f32");
  int opened = 0;
  auto problems = check_folder(*dir, CheckOptions{}, skeleton_copy(&opened));
  EXPECT_TRUE(problems.empty()) << dump(problems);
  EXPECT_EQ(opened, 1);
  std::ifstream ref(*dir / "reference.cpp");
  std::string text((std::istreambuf_iterator<char>(ref)), {});
  EXPECT_NE(text.find("void fused_thing(const core::ReferenceArgs& a)"), std::string::npos);
}

TEST(SpecCheck, NewRefusesBadNamesAndExistingFolders) {
  kwb::test::TempDir tmp;
  EXPECT_FALSE(write_skeleton(tmp.path(), "Bad-Name").has_value());
  ASSERT_TRUE(write_skeleton(tmp.path(), "op1").has_value());
  auto again = write_skeleton(tmp.path(), "op1");
  ASSERT_FALSE(again.has_value());
  EXPECT_NE(again.error().message.find("already exists"), std::string::npos);
}

TEST(SpecCheck, LoaderErrorsNameFileAndFieldAndEveryFolderIsChecked) {
  kwb::test::TempDir tmp;
  // A catalog: one good spec, one with a bad expression, one without reference.cpp, one whose
  // op is not its folder's name.
  ASSERT_TRUE(write_skeleton(tmp.path(), "good").has_value());
  ASSERT_TRUE(write_skeleton(tmp.path(), "bad_expr").has_value());
  {
    std::ifstream in(tmp / "bad_expr/spec.json");
    std::string text((std::istreambuf_iterator<char>(in)), {});
    const std::string from = "\"shape\": [\"rows\", \"cols\"]";
    text.replace(text.find(from), from.size(), "\"shape\": [\"rows\", \"cols*\"]");
    write(tmp / "bad_expr/spec.json", text);
  }
  ASSERT_TRUE(write_skeleton(tmp.path(), "no_ref").has_value());
  fs::remove(tmp / "no_ref/reference.cpp");
  ASSERT_TRUE(write_skeleton(tmp.path(), "renamed").has_value());
  fs::rename(tmp / "renamed", tmp / "other_name");
  CheckOptions options;
  options.reference_checks = false;
  auto report = check_path(tmp.path(), options, ReferenceAccess{});
  ASSERT_TRUE(report.has_value()) << report.error().what();
  EXPECT_EQ(report->folders.size(), 4u);
  const auto& ps = report->problems;
  ASSERT_EQ(ps.size(), 3u) << dump(ps);
  EXPECT_EQ(ps[0].file, (tmp / "bad_expr/spec.json").string());
  EXPECT_EQ(ps[0].field, "tensors[0].shape[1]");
  EXPECT_NE(ps[0].message.find("bad expression \"cols*\""), std::string::npos) << ps[0].message;
  EXPECT_EQ(ps[1].file, (tmp / "no_ref/reference.cpp").string());
  EXPECT_NE(ps[1].message.find("missing"), std::string::npos);
  EXPECT_EQ(ps[2].field, "op");
  EXPECT_NE(ps[2].message.find("\"renamed\" must equal the name of its folder, \"other_name\""), std::string::npos);
}

TEST(SpecCheck, AFolderWithoutSpecsIsAnError) {
  kwb::test::TempDir tmp;
  fs::create_directories(tmp / "empty");
  EXPECT_FALSE(check_path(tmp / "empty", CheckOptions{}, ReferenceAccess{}).has_value());
  EXPECT_FALSE(check_path(tmp / "missing", CheckOptions{}, ReferenceAccess{}).has_value());
}

TEST(SpecCheck, AReferenceThatCannotBeOpenedIsAnErrorOfReferenceCpp) {
  kwb::test::TempDir tmp;
  auto dir = write_skeleton(tmp.path(), "op2");
  ASSERT_TRUE(dir.has_value());
  ReferenceAccess access;
  access.open = [](const core::Spec&) -> util::Result<std::shared_ptr<eval::Reference>> {
    return util::fail("", "reference.cpp:3:1: error: expected ';'");
  };
  auto problems = check_folder(*dir, CheckOptions{}, access);
  ASSERT_EQ(problems.size(), 1u) << dump(problems);
  EXPECT_EQ(problems[0].file, (*dir / "reference.cpp").string());
  EXPECT_NE(problems[0].message.find("could not be opened: reference.cpp:3:1: error"), std::string::npos);
}

}  // namespace
}  // namespace kwb::speccheck::test
