#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "build/flags.hpp"

namespace kwb::build {
namespace {

TEST(CheckFlags, EmptyIsAllowed) { EXPECT_TRUE(check_flags({}).has_value()); }

TEST(CheckFlags, CodeGenerationAndMacroFlagsAreAllowed) {
  const std::vector<std::string> flags = {"-O2", "-ffast-math", "-mavx2", "-DX=1", "-Wall",
                                          "-O3", "-funroll-loops", "-march=native", "-UNDEBUG", "-Wextra",
                                          "-Werror=return-type", "-fno-exceptions"};
  auto r = check_flags(flags);
  EXPECT_TRUE(r.has_value()) << r.error().what();
  for (const auto& f : flags) EXPECT_TRUE(check_flags({f}).has_value()) << f;
}

class CheckFlagsDenied : public ::testing::TestWithParam<std::string> {};

TEST_P(CheckFlagsDenied, IsRefusedNamingTheFlagAndItsIndex) {
  const std::string& bad = GetParam();
  // Put two allowed flags first so the index is not trivially 0.
  auto r = check_flags({"-O2", "-DX=1", bad, "-Wall"});
  ASSERT_FALSE(r.has_value()) << "allowed: " << bad;
  EXPECT_EQ(r.error().where, "flags[2]");
  EXPECT_NE(r.error().message.find("'" + bad + "'"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().what().find("flags[2]"), std::string::npos);
  // Alone, it is refused at index 0.
  auto alone = check_flags({bad});
  ASSERT_FALSE(alone.has_value());
  EXPECT_EQ(alone.error().where, "flags[0]");
}

INSTANTIATE_TEST_SUITE_P(Hostile, CheckFlagsDenied,
                         ::testing::Values("-fplugin=x.so", "-specs=x", "--specs=x", "-B/tmp", "@file",
                                           "-Xlinker", "-Wl,-rpath", "-Wa,-adhln=/job/x", "-Wp,-MD,/tmp/x",
                                           "-I/etc", "-isystem", "-isystem/x", "-iquote/x", "-idirafter/x",
                                           "-include", "-include/etc/passwd", "-imacros/etc/passwd", "-L/x",
                                           "--sysroot=/", "-o", "-l", "-lfoo", "-save-temps", "-x", "-v",
                                           "-###", "-E", "-fdump-tree-all", "-fprofile-generate",
                                           "-fprofile-use=/x", "-fauto-profile=/x", "-fopenmp",
                                           "-fopenmp-simd", "-fsanitize-ignorelist=/etc/passwd",
                                           "-fdebug-prefix-map=/=/x", "-fcreate-profile", "--foo", "-pthread",
                                           "-Xassembler", "-MD", "-c", "-shared", "-static", "x.cpp", "",
                                           "-wrapper", "-iplugindir=/x"));

// The separate-argument forms from the brief: the option itself is refused, whatever follows.
TEST(CheckFlags, SeparateArgumentFormsAreRefusedAtTheOption) {
  for (const auto& pair : std::vector<std::vector<std::string>>{
           {"-isystem", "/x"}, {"-include", "/etc/passwd"}, {"-o", "x"}, {"-Xlinker", "-rpath"}}) {
    auto r = check_flags(pair);
    ASSERT_FALSE(r.has_value()) << pair[0];
    EXPECT_EQ(r.error().where, "flags[0]") << pair[0];
    EXPECT_NE(r.error().message.find(pair[0]), std::string::npos);
  }
}

TEST(CheckFlags, FirstBadFlagIsTheOneReported) {
  auto r = check_flags({"-O2", "-fopenmp", "-I/etc"});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().where, "flags[1]");
  EXPECT_NE(r.error().message.find("-fopenmp"), std::string::npos);
}

TEST(CheckFlags, RefusalSaysWhatIsAllowed) {
  auto r = check_flags({"--foo"});
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("allowed"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace kwb::build

namespace kwb::build {
namespace {

TEST(FlagPolicyControlCharacters, ANewlineInAFlagIsRefused) {
  auto r = check_flags({"-O2", "-DX=1\nKwb-Candidate: c-0000000000000000"});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().what().find("flags[1]: flag contains a control character"), std::string::npos) << r.error().what();
  EXPECT_FALSE(check_flags({"-DX=\t1"}));
  EXPECT_TRUE(check_flags({"-DX=1 2"}));
}

}  // namespace
}  // namespace kwb::build
