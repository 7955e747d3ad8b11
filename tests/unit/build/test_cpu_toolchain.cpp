#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <filesystem>
#include <fstream>
#include <string>

#include "build/cpu_toolchain.hpp"
#include "temp_dir.hpp"

namespace kwb::build {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

TEST(CpuToolchain, DetectGppReadsItsVersion) {
  auto t = CpuToolchain::detect("g++");
  ASSERT_TRUE(t.has_value()) << t.error().what();
  EXPECT_TRUE(t->identity().starts_with("g++ ")) << t->identity();
  const std::string version = t->identity().substr(4);
  EXPECT_FALSE(version.empty());
  EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(version[0]))) << t->identity();
  EXPECT_EQ(version.find('\n'), std::string::npos);
}

TEST(CpuToolchain, DetectAcceptsAnAbsolutePathUnderUsr) {
  auto t = CpuToolchain::detect("/usr/bin/g++");
  ASSERT_TRUE(t.has_value()) << t.error().what();
  EXPECT_TRUE(t->identity().starts_with("g++ ")) << t->identity();
}

TEST(CpuToolchain, MissingCompilerIsAClearError) {
  auto t = CpuToolchain::detect("no-such-compiler++");
  ASSERT_FALSE(t.has_value());
  EXPECT_EQ(t.error().where, "cxx");
  EXPECT_NE(t.error().message.find("/usr/bin/no-such-compiler++"), std::string::npos) << t.error().message;
  EXPECT_NE(t.error().message.find("not found"), std::string::npos) << t.error().message;
  EXPECT_NE(t.error().message.find("KWB_CXX"), std::string::npos) << t.error().message;
}

TEST(CpuToolchain, CompilerOutsideUsrIsRefused) {
  for (const std::string cxx : {"/opt/gcc/bin/g++", "/tmp/g++", "./g++", "bin/g++", "/usrlocal/g++"}) {
    auto t = CpuToolchain::detect(cxx);
    ASSERT_FALSE(t.has_value()) << cxx;
    EXPECT_EQ(t.error().where, "cxx");
    EXPECT_NE(t.error().message.find("/usr"), std::string::npos) << t.error().message;
    EXPECT_NE(t.error().message.find(cxx), std::string::npos) << t.error().message;
  }
}

// "/usr/../tmp/x" is spelled under /usr but lives outside it: it must be refused, and never run.
TEST(CpuToolchain, DotDotOutOfUsrIsRefused) {
  TempDir dir;
  const fs::path fake = dir / "g++";
  const fs::path marker = dir / "ran";
  {
    std::ofstream out(fake);
    out << "#!/bin/sh\ntouch '" << marker.string() << "'\necho 12.2.0\n";
  }
  fs::permissions(fake, fs::perms::owner_all);
  const std::string cxx = "/usr/.." + fake.string();
  auto t = CpuToolchain::detect(cxx);
  EXPECT_FALSE(t.has_value()) << "accepted " << cxx << " as " << t->identity();
  EXPECT_FALSE(fs::exists(marker)) << "detect ran " << cxx << " on the host";
}

TEST(CpuToolchain, BaseFlagsBuildASharedObject) {
  auto t = CpuToolchain::detect("g++");
  ASSERT_TRUE(t.has_value()) << t.error().what();
  auto flags = t->base_flags();
  auto has = [&](const char* f) { return std::find(flags.begin(), flags.end(), f) != flags.end(); };
  EXPECT_TRUE(has("-shared"));
  EXPECT_TRUE(has("-fPIC"));
  EXPECT_TRUE(has("-fno-diagnostics-color"));
}

class CpuCompile : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists("/usr/bin/bwrap")) GTEST_SKIP() << "bubblewrap not installed";
    auto t = CpuToolchain::detect("g++");
    ASSERT_TRUE(t.has_value()) << t.error().what();
    m_toolchain.emplace(std::move(*t));
  }
  CompileRequest request(std::string source) {
    CompileRequest req;
    req.source = std::move(source);
    req.display_name = "my_kernel.cpp";
    req.job_dir = m_job.path();
    req.timeout_ms = 60000;
    return req;
  }

  TempDir m_job;
  std::optional<CpuToolchain> m_toolchain;
};

TEST_F(CpuCompile, TrivialSourceBuildsASharedObject) {
  auto r = m_toolchain->compile(request("extern \"C\" int kwb_add_one(int x) { return x + 1; }\n"));
  ASSERT_TRUE(r.has_value()) << r.error().what();
  EXPECT_TRUE(r->ok) << r->reason << "\n" << r->log;
  EXPECT_FALSE(r->timed_out);
  EXPECT_EQ(r->object_inside, "/job/candidate.so");
  EXPECT_TRUE(fs::is_regular_file(m_job / "candidate.so"));
  EXPECT_GT(fs::file_size(m_job / "candidate.so"), 0u);
  EXPECT_TRUE(fs::is_regular_file(m_job / "candidate.cpp"));
}

TEST_F(CpuCompile, SyntaxErrorGivesADiagnosticWithTheDisplayName) {
  auto r = m_toolchain->compile(request("extern \"C\" int f(int x) {\n  return x +;\n}\n"));
  ASSERT_TRUE(r.has_value()) << r.error().what();
  EXPECT_FALSE(r->ok);
  EXPECT_FALSE(fs::exists(m_job / "candidate.so"));
  auto it = std::find_if(r->diagnostics.begin(), r->diagnostics.end(),
                         [](const core::Diagnostic& d) { return d.severity == "error"; });
  ASSERT_NE(it, r->diagnostics.end()) << r->log;
  EXPECT_EQ(it->file, "my_kernel.cpp");
  EXPECT_EQ(it->line, 2);
  EXPECT_GT(it->col, 0);
  EXPECT_TRUE(r->reason.starts_with("my_kernel.cpp:2:")) << r->reason;
  EXPECT_NE(r->log.find("error"), std::string::npos);
}

TEST_F(CpuCompile, ForbiddenFlagIsRefusedBeforeCompiling) {
  auto req = request("extern \"C\" int f() { return 0; }\n");
  req.extra_flags = {"-O2", "-fplugin=/tmp/evil.so"};
  auto r = m_toolchain->compile(req);
  ASSERT_TRUE(r.has_value()) << r.error().what();
  EXPECT_FALSE(r->ok);
  EXPECT_NE(r->reason.find("flags[1]"), std::string::npos) << r->reason;
  ASSERT_EQ(r->diagnostics.size(), 1u);
  EXPECT_EQ(r->diagnostics[0].file, "my_kernel.cpp");
  EXPECT_EQ(r->diagnostics[0].severity, "error");
  EXPECT_FALSE(fs::exists(m_job / "candidate.cpp"));
  EXPECT_FALSE(fs::exists(m_job / "candidate.so"));
}

// A compile-cache hit reports the warnings the compile that made the object did (`kwb spec check`
// fails a reference that warns; it passed on a hit before), and an entry without its log (made by
// a workbench that kept none) is compiled again.
TEST_F(CpuCompile, ACacheHitKeepsTheCompilersWarnings) {
  TempDir cache;
  auto req = request("extern \"C\" int f(unsigned a, int b) { return a < b; }\n");
  req.extra_flags = {"-Wall", "-Wextra"};
  req.cache_dir = cache.path();
  auto warns = [](const util::Result<CompileResult>& r) {
    return r && std::any_of(r->diagnostics.begin(), r->diagnostics.end(),
                            [](const core::Diagnostic& d) { return d.severity == "warning"; });
  };
  auto first = m_toolchain->compile(req);
  ASSERT_TRUE(first && first->ok) << (first ? first->reason : first.error().what());
  EXPECT_FALSE(first->cache_hit);
  EXPECT_TRUE(warns(first)) << first->log;
  auto second = m_toolchain->compile(req);
  ASSERT_TRUE(second && second->ok);
  EXPECT_TRUE(second->cache_hit);
  EXPECT_TRUE(warns(second)) << second->log;
  std::vector<fs::path> logs;
  for (const auto& e : fs::recursive_directory_iterator(cache.path()))
    if (e.path().extension() == ".log") logs.push_back(e.path());
  ASSERT_EQ(logs.size(), 1u);
  for (const auto& p : logs) fs::remove(p);
  auto third = m_toolchain->compile(req);
  ASSERT_TRUE(third && third->ok);
  EXPECT_FALSE(third->cache_hit) << "an entry without its log is compiled again";
  EXPECT_TRUE(warns(third));
}

}  // namespace
}  // namespace kwb::build
