#include <chrono>

#include "support.hpp"

namespace kwb::analysis::test {
namespace {

TEST(Include, SystemHeadersAreFine) {
  auto r = run(vector_add("c[0] = std::sqrt(a[0]);", "#include <cmath>\n#include <immintrin.h>\n#include <omp.h>"));
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_TRUE(r.findings.empty()) << dump(r);
}

TEST(Include, QuotedIsAnError) {
  auto r = run(vector_add("", "#include \"cmath\""));
  KWB_REQUIRE_AVAILABLE(r);
  const auto* f = find(r, "include");
  ASSERT_NE(f, nullptr) << dump(r);
  EXPECT_EQ(f->line, 2);
  EXPECT_NE(f->message.find("quoted #include \"cmath\""), std::string::npos) << f->message;
}

TEST(Include, AbsoluteAndParentPathsAreErrorsAndAreNeverRead) {
  auto r = run(vector_add("", "#include \"/etc/hostname\"\n#include </etc/passwd>\n#include <../../../../etc/group>"));
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_EQ(count(r, "include"), 3) << dump(r);
  // The parser never saw those files: only "file not found", none of their content.
  EXPECT_GE(count(r, "parse"), 3) << dump(r);
  for (const auto& f : r.findings) {
    if (f.rule == "parse") {
      EXPECT_NE(f.message.find("file not found"), std::string::npos) << f.message;
    }
  }
  EXPECT_NE(dump(r).find("absolute #include '/etc/passwd'"), std::string::npos);
  EXPECT_NE(dump(r).find("leaves its directory with '..'"), std::string::npos);
}

TEST(Include, DeviceFilesDoNotHangTheParser) {
  auto start = std::chrono::steady_clock::now();
  auto r = run(vector_add("", "#include </dev/zero>\n#include \"/dev/stdin\""));
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_EQ(count(r, "include"), 2) << dump(r);
}

TEST(Include, ComputedIncludeAndEmbed) {
  auto r = run(vector_add("", "#define HDR <cstdint>\n#include HDR\nconst char data[] = {\n#embed <stdio.h>\n};"));
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_EQ(count(r, "include"), 2) << dump(r);
  EXPECT_NE(dump(r).find("computed #include"), std::string::npos);
  EXPECT_NE(dump(r).find("#embed"), std::string::npos);
}

TEST(Preprocessor, CompilerIdentityTestsAreErrors) {
  // g++ would compile the #else branch; the analyzer (clang) would only see the first.
  auto r = run(vector_add("#ifdef __clang__\nc[0] = a[0];\n#else\nstd::system(\"id\");\n#endif",
                          "#include <cstdlib>"));
  KWB_REQUIRE_AVAILABLE(r);
  const auto* f = find(r, "preprocessor");
  ASSERT_NE(f, nullptr) << dump(r);
  EXPECT_EQ(f->line, 4);
  EXPECT_NE(f->message.find("'__clang__'"), std::string::npos);
  auto probe = run(vector_add("#if __has_builtin(__builtin_expect)\nc[0] = a[0];\n#endif"));
  EXPECT_EQ(count(probe, "preprocessor"), 1) << dump(probe);
  auto feature = run(vector_add("#ifdef __AVX2__\nc[0] = a[0];\n#endif"));
  EXPECT_TRUE(feature.findings.empty()) << dump(feature);
}

TEST(Parse, ErrorsCarryTheirLocation) {
  auto r = run(vector_add("undeclared_helper(c, n);"));
  KWB_REQUIRE_AVAILABLE(r);
  const auto* e = r.first_error();
  ASSERT_NE(e, nullptr) << dump(r);
  EXPECT_EQ(e->rule, "parse");
  EXPECT_EQ(e->file, "k.cpp");
  EXPECT_EQ(e->line, 4);
  EXPECT_EQ(e->col, 1);
  EXPECT_NE(e->message.find("undeclared_helper"), std::string::npos);
  EXPECT_EQ(format_finding(*e).rfind("parse: k.cpp:4:1: ", 0), 0u) << format_finding(*e);
}

TEST(Parse, DefinesFromFlagsApply) {
  std::string src = vector_add("#ifdef EVIL\nstd::system(\"id\");\n#endif", "#include <cstdlib>");
  auto plain = run(src);
  KWB_REQUIRE_AVAILABLE(plain);
  EXPECT_EQ(count(plain, "forbidden-call"), 0) << dump(plain);
  auto with = run(src, "vector_add", "cpu", "f32", {}, {"-DEVIL", "-O2", "-fno-plugin-whatever"});
  EXPECT_EQ(count(with, "forbidden-call"), 1) << dump(with);
}

}  // namespace
}  // namespace kwb::analysis::test
