#include <gtest/gtest.h>

#include <string>

#include "build/diagnostics.hpp"

namespace kwb::build {
namespace {

TEST(ParseDiagnostics, GccErrorLine) {
  const std::string log =
      "candidate.cpp: In function 'void kwb_vector_add_f32(const float*, const float*, float*, int64_t)':\n"
      "candidate.cpp:6:5: error: 'undeclared_helper' was not declared in this scope\n"
      "    6 |     undeclared_helper(c, i);\n"
      "      |     ^~~~~~~~~~~~~~~~~\n";
  auto d = parse_diagnostics(log, "candidate.cpp", "compile_error.cpp");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].file, "compile_error.cpp");
  EXPECT_EQ(d[0].line, 6);
  EXPECT_EQ(d[0].col, 5);
  EXPECT_EQ(d[0].severity, "error");
  EXPECT_EQ(d[0].message, "'undeclared_helper' was not declared in this scope");
}

TEST(ParseDiagnostics, ClangErrorLine) {
  const std::string log =
      "candidate.cpp:12:3: error: use of undeclared identifier 'foo'\n"
      "  foo();\n"
      "  ^\n"
      "1 error generated.\n";
  auto d = parse_diagnostics(log, "candidate.cpp", "mine.cpp");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].file, "mine.cpp");
  EXPECT_EQ(d[0].line, 12);
  EXPECT_EQ(d[0].col, 3);
  EXPECT_EQ(d[0].severity, "error");
  EXPECT_EQ(d[0].message, "use of undeclared identifier 'foo'");
}

TEST(ParseDiagnostics, FatalErrorBecomesError) {
  auto d = parse_diagnostics("candidate.cpp:1:10: fatal error: missing.h: No such file or directory\n",
                             "candidate.cpp", "k.cpp");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].severity, "error");
  EXPECT_EQ(d[0].line, 1);
  EXPECT_EQ(d[0].col, 10);
  EXPECT_EQ(d[0].message, "missing.h: No such file or directory");
}

TEST(ParseDiagnostics, WarningAndNoteSeverities) {
  const std::string log =
      "candidate.cpp:4:7: warning: unused variable 'x' [-Wunused-variable]\n"
      "candidate.cpp:2:6: note: declared here\n";
  auto d = parse_diagnostics(log, "candidate.cpp", "k.cpp");
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].severity, "warning");
  EXPECT_EQ(d[0].message, "unused variable 'x' [-Wunused-variable]");
  EXPECT_EQ(d[1].severity, "note");
  EXPECT_EQ(d[1].line, 2);
  EXPECT_EQ(d[1].col, 6);
}

TEST(ParseDiagnostics, RenamesEveryFormOfTheCompiledName) {
  const std::string log =
      "./candidate.cpp:1:1: error: a\n"
      "/job/candidate.cpp:2:2: error: b\n"
      "candidate.cpp:3:3: error: c\n";
  auto d = parse_diagnostics(log, "candidate.cpp", "user/kernel.cpp");
  ASSERT_EQ(d.size(), 3u);
  for (const auto& x : d) EXPECT_EQ(x.file, "user/kernel.cpp") << x.message;
}

TEST(ParseDiagnostics, OtherFilesKeepTheirNames) {
  const std::string log =
      "/usr/include/c++/12/bits/stl_vector.h:1123:7: note: candidate: 'foo'\n"
      "other_candidate.cpp:5:1: error: x\n"
      "/tmp/candidate.cpp:6:1: error: y\n";
  auto d = parse_diagnostics(log, "candidate.cpp", "k.cpp");
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].file, "/usr/include/c++/12/bits/stl_vector.h");
  EXPECT_EQ(d[0].line, 1123);
  EXPECT_EQ(d[1].file, "other_candidate.cpp");
  EXPECT_EQ(d[2].file, "/tmp/candidate.cpp");
}

TEST(ParseDiagnostics, NonMatchingLinesAreIgnored) {
  const std::string log =
      "In file included from candidate.cpp:1:\n"
      "candidate.cpp: In function 'int f()':\n"
      "candidate.cpp:3:5:   required from here\n"
      "candidate.cpp:3: error: no column\n"
      "candidate.cpp:x:5: error: not a number\n"
      "compilation terminated.\n"
      "1 error generated.\n"
      "\n"
      "cc1plus: error: unrecognized command-line option '-fbogus'\n";
  EXPECT_TRUE(parse_diagnostics(log, "candidate.cpp", "k.cpp").empty());
  EXPECT_TRUE(parse_diagnostics("", "candidate.cpp", "k.cpp").empty());
}

TEST(ParseDiagnostics, LastLineWithoutNewlineAndMessageWithColons) {
  auto d = parse_diagnostics("candidate.cpp:7:9: error: expected ';' before '}' token: see note: here",
                             "candidate.cpp", "k.cpp");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].file, "k.cpp");
  EXPECT_EQ(d[0].line, 7);
  EXPECT_EQ(d[0].col, 9);
  EXPECT_EQ(d[0].message, "expected ';' before '}' token: see note: here");
}

TEST(ParseDiagnostics, KeepsOrderOfManyLines) {
  std::string log;
  for (int i = 1; i <= 50; ++i) log += "candidate.cpp:" + std::to_string(i) + ":1: error: e" + std::to_string(i) + "\n";
  auto d = parse_diagnostics(log, "candidate.cpp", "k.cpp");
  ASSERT_EQ(d.size(), 50u);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(d[size_t(i)].line, i + 1);
}

}  // namespace
}  // namespace kwb::build
