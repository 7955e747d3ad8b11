// Issue 16: references are spec data. The workbench compiles a spec folder's reference.cpp in the
// compile sandbox and runs it in a reference process of its own (the real kwb-runner in the real
// sandbox): results equal the in-process arithmetic bit for bit, and a reference that crashes,
// loops, throws or writes past its output is an error that names the spec and the reason.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "eval/reference_host.hpp"
#include "spec/loader.hpp"
#include "temp_dir.hpp"

namespace kwb::eval {
namespace {

namespace fs = std::filesystem;

struct Host {
  test::TempDir workspace;
  std::optional<ReferenceHost> host;
  std::string problem;

  explicit Host(int timeout_ms = 60000) {
    fs::path runner = fs::path(KWB_TEST_BIN_DIR) / "kwb-runner";
    const char* bwrap = std::getenv("KWB_BWRAP");
    if (!fs::exists(runner)) problem = "no kwb-runner at " + runner.string();
    ReferenceHostConfig cfg;
    cfg.runner = runner;
    cfg.bwrap = bwrap && *bwrap ? bwrap : "/usr/bin/bwrap";
    cfg.workspace = workspace.path();
    cfg.timeout_ms = timeout_ms;
    host.emplace(cfg);
  }
};

#define KWB_NEED_HOST(h) \
  if (!(h).problem.empty()) GTEST_SKIP() << (h).problem

core::Spec shipped(const std::string& op) {
  auto spec = spec::load_spec(fs::path(KWB_TEST_SOURCE_DIR) / "specs" / op / "spec.json");
  if (!spec) throw std::runtime_error(spec.error().what());
  return *spec;
}

// A copy of the vector_add spec folder whose reference has `body` as the function's statements.
core::Spec vector_add_with(const fs::path& dir, const std::string& body) {
  fs::create_directories(dir / "vector_add");
  fs::copy_file(fs::path(KWB_TEST_SOURCE_DIR) / "specs/vector_add/spec.json", dir / "vector_add/spec.json");
  std::ofstream(dir / "vector_add/reference.cpp")
      << "#include \"core/reference.hpp\"\n#include <cstdlib>\nnamespace kwb::reference {\n"
         "void vector_add(const core::ReferenceArgs& a) {\n  const int64_t n = a.param(\"n\");\n"
         "  const float* x = a.in<float>(\"a\");\n  const float* y = a.in<float>(\"b\");\n  double* c = a.out(\"c\");\n"
      << body << "\n}\n}\n";
  auto spec = spec::load_spec(dir / "vector_add/spec.json");
  if (!spec) throw std::runtime_error(spec.error().what());
  return *spec;
}

struct VectorAddCall {
  std::vector<float> a, b;
  std::vector<double> c;
  core::ReferenceArgs args;
  explicit VectorAddCall(int64_t n) : a(size_t(n)), b(size_t(n)), c(size_t(n), -7.0) {
    for (int64_t i = 0; i < n; ++i) a[size_t(i)] = float(i) * 0.5f, b[size_t(i)] = 1.0f / float(i + 1);
    args.variant = "f32";
    args.params = {{"n", n}};
    args.inputs = {{"a", a.data()}, {"b", b.data()}};
    args.outputs = {{"c", c.data()}};
  }
};

TEST(ReferenceHost, GemmInItsOwnProcessEqualsTheOneThreadSumExactly) {
  // The gemm reference splits rows of C across threads for large products; every element must
  // still be summed in the same order, so the result equals a one-thread sum bit for bit.
  Host h;
  KWB_NEED_HOST(h);
  const int64_t m = 300, n = 211, k = 301;  // m*n*k > 2^24: the threaded path
  std::vector<float> a(size_t(m * k)), b(size_t(k * n));
  uint32_t x = 12345;
  auto next = [&] {
    x = x * 1664525u + 1013904223u;
    return float(int(x >> 8) % 2001 - 1000) / 7.0f;
  };
  for (auto& v : a) v = next();
  for (auto& v : b) v = next();
  std::vector<double> c(size_t(m * n));
  core::ReferenceArgs args;
  args.variant = "f32";
  args.params = {{"m", m}, {"n", n}, {"k", k}};
  args.inputs = {{"a", a.data()}, {"b", b.data()}};
  args.outputs = {{"c", c.data()}};
  core::Spec gemm = shipped("gemm");
  auto ref = h.host->open(gemm);
  ASSERT_TRUE(ref) << ref.error().what();
  auto done = (*ref)->compute(args);
  ASSERT_TRUE(done) << done.error().what();
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p) s += double(a[size_t(i * k + p)]) * double(b[size_t(p * n + j)]);
      ASSERT_EQ(std::memcmp(&s, &c[size_t(i * n + j)], sizeof s), 0) << "c[" << i << "][" << j << "]";
    }
}

TEST(ReferenceHost, ComputesAgainAndAgainInOneProcessAndKeepsWhatItDoesNotWrite) {
  Host h;
  KWB_NEED_HOST(h);
  test::TempDir specs;
  // Writes every element but the last: the caller's value stays there (the toolkit's
  // unwritten-element check relies on it).
  core::Spec spec = vector_add_with(specs.path(), "  for (int64_t i = 0; i + 1 < n; ++i) c[i] = double(x[i]) + double(y[i]);");
  auto ref = h.host->open(spec);
  ASSERT_TRUE(ref) << ref.error().what();
  for (int64_t n : {1, 1000, 37, 100000}) {
    VectorAddCall call(n);
    auto done = (*ref)->compute(call.args);
    ASSERT_TRUE(done) << done.error().what();
    for (int64_t i = 0; i + 1 < n; ++i) ASSERT_EQ(call.c[size_t(i)], double(call.a[size_t(i)]) + double(call.b[size_t(i)]));
    EXPECT_EQ(call.c.back(), -7.0) << n;
  }
  // The second open of the same source is the build cache's (no second compile).
  auto again = h.host->build(spec);
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->ok);
}

size_t reference_processes(const fs::path& workspace) {  // each has its folder jobs/ref-*
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(workspace / "jobs")) n += e.path().filename().string().starts_with("ref-");
  return n;
}

TEST(ReferenceHost, AnEndedEvaluationsProcessServesTheNextOneButNotAfterItFailed) {
  Host h;
  KWB_NEED_HOST(h);
  test::TempDir specs;
  core::Spec spec = vector_add_with(specs.path(), "  if (n == 13) std::abort();\n"
                                                  "  for (int64_t i = 0; i < n; ++i) c[i] = double(x[i]) + double(y[i]);");
  auto compute = [&](Reference& ref, int64_t n) {
    VectorAddCall call(n);
    auto done = ref.compute(call.args);
    if (done) EXPECT_EQ(call.c[size_t(n) - 1], double(call.a.back()) + double(call.b.back()));
    return bool(done);
  };
  {
    auto ref = h.host->open(spec);
    ASSERT_TRUE(ref) << ref.error().what();
    ASSERT_TRUE(compute(**ref, 1000));
  }
  EXPECT_EQ(reference_processes(h.workspace.path()), 1u);  // ended, and kept
  {
    auto first = h.host->open(spec), second = h.host->open(spec);  // two evaluations at once
    ASSERT_TRUE(first && second);
    EXPECT_EQ(reference_processes(h.workspace.path()), 2u);  // the kept one and a new one
    ASSERT_TRUE(compute(**first, 100000));
    ASSERT_TRUE(compute(**second, 5));
  }
  EXPECT_EQ(reference_processes(h.workspace.path()), 2u);
  {
    auto ref = h.host->open(spec);
    ASSERT_TRUE(ref);
    EXPECT_FALSE(compute(**ref, 13));  // it crashes: the process is gone
  }
  EXPECT_EQ(reference_processes(h.workspace.path()), 1u);  // not kept
  auto ref = h.host->open(spec);  // the other kept one still computes
  ASSERT_TRUE(ref);
  EXPECT_TRUE(compute(**ref, 77));
}

struct Broken {
  const char* name;
  const char* body;
  const char* reason;  // a fragment of the error
};

class BrokenReference : public ::testing::TestWithParam<Broken> {};

TEST_P(BrokenReference, IsAnErrorThatNamesTheSpecAndTheReason) {
  Host h(3000);
  KWB_NEED_HOST(h);
  test::TempDir specs;
  core::Spec spec = vector_add_with(specs.path(), GetParam().body);
  auto ref = h.host->open(spec);
  ASSERT_TRUE(ref) << ref.error().what();
  VectorAddCall call(4096);
  auto done = (*ref)->compute(call.args);
  ASSERT_FALSE(done);
  EXPECT_NE(done.error().what().find(GetParam().reason), std::string::npos) << done.error().what();
  // The process is gone (or the reference keeps failing): a second call fails too, at once.
  auto second = (*ref)->compute(call.args);
  EXPECT_FALSE(second);
  // And a fresh reference process of a good spec still works: nothing of the daemon was hurt.
  core::Spec good = shipped("vector_add");
  auto fine = h.host->open(good);
  ASSERT_TRUE(fine) << fine.error().what();
  EXPECT_TRUE((*fine)->compute(call.args));
}

INSTANTIATE_TEST_SUITE_P(
    ReferenceHost, BrokenReference,
    ::testing::Values(Broken{"segfault", "  volatile double* p = nullptr; *p = 1; (void)x; (void)y; (void)c; (void)n;",
                             "the reference crashed during computing the expected outputs: SIGSEGV"},
                      Broken{"endless_loop", "  for (volatile int64_t i = 0;; i = i + 1) c[0] = double(i); (void)x; (void)y; (void)n;",
                             "did not finish within 3000 ms"},
                      Broken{"past_the_output", "  for (int64_t i = 0; i <= n + 8; ++i) c[i] = double(x[0]) + double(y[0]);",
                             "bytes past the end of output c"},
                      Broken{"throws", "  (void)x; (void)y; (void)c; (void)a.param(\"rows\");",
                             "it threw: the reference asked for param 'rows'"},
                      Broken{"exits", "  (void)x; (void)y; (void)c; (void)n; std::exit(3);",
                             "did the reference call exit()?"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(ReferenceHost, AReferenceThatDoesNotCompileSaysWhereInItsFile) {
  Host h;
  KWB_NEED_HOST(h);
  test::TempDir specs;
  core::Spec spec = vector_add_with(specs.path(), "  c[0] = undeclared_name; (void)x; (void)y; (void)n;");
  auto built = h.host->build(spec);
  ASSERT_TRUE(built) << built.error().what();
  EXPECT_FALSE(built->ok);
  EXPECT_NE(built->reason.find("reference.cpp:9:"), std::string::npos) << built->reason;
  EXPECT_NE(built->reason.find("undeclared_name"), std::string::npos) << built->reason;
  auto ref = h.host->open(spec);
  ASSERT_FALSE(ref);
  EXPECT_NE(ref.error().what().find("does not compile"), std::string::npos) << ref.error().what();
}

TEST(ReferenceHost, ASpecFolderWithoutAReferenceSaysWhatIsMissing) {
  Host h;
  KWB_NEED_HOST(h);
  test::TempDir specs;
  core::Spec spec = vector_add_with(specs.path(), "");
  fs::remove(specs / "vector_add/reference.cpp");
  auto ref = h.host->open(spec);
  ASSERT_FALSE(ref);
  EXPECT_NE(ref.error().what().find("reference.cpp"), std::string::npos) << ref.error().what();
  EXPECT_NE(ref.error().what().find("kwb::reference::vector_add"), std::string::npos) << ref.error().what();
}

}  // namespace
}  // namespace kwb::eval
