// The analyzer as a whole: rules table, shipped kernels, cache, availability, threads.
#include <cstdlib>
#include <future>
#include <set>

#include <nlohmann/json.hpp>

#include "spec/launch_plan.hpp"
#include "support.hpp"
#include "util/fs.hpp"

namespace kwb::analysis::test {
namespace {

namespace fs = std::filesystem;

TEST(Rules, EveryRuleIsListedOnceWithSeverityAndSummary) {
  std::set<std::string> ids;
  for (const auto& r : rules()) {
    EXPECT_TRUE(ids.insert(r.id).second) << r.id;
    EXPECT_TRUE(r.severity == "error" || r.severity == "warning" || r.severity == "note") << r.id;
    EXPECT_GT(r.summary.size(), 20u) << r.id;
  }
  for (const char* id : {"entry-signature", "forbidden-call", "launcher-streams", "inline-asm", "mutable-global-state",
                         "include", "precision-downcast", "preprocessor", "symbol-alias", "parse",
                         "analysis-unavailable"})
    EXPECT_TRUE(ids.contains(id)) << id;
}

TEST(Rules, DocumentedInDocsAnalysisMd) {
  auto doc = util::read_file(fs::path(KWB_TEST_SOURCE_DIR) / "docs/analysis.md");
  ASSERT_TRUE(doc) << "docs/analysis.md";
  for (const auto& r : rules()) EXPECT_NE(doc->find("`" + r.id + "`"), std::string::npos) << r.id;
}

struct Shipped {
  fs::path source;
  std::string op, variant, backend;
};

std::vector<Shipped> shipped() {
  std::vector<Shipped> out;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(KWB_TEST_SOURCE_DIR) / "kernels")) {
    std::string backend = e.path().parent_path().filename();
    if (!((e.path().extension() == ".cpp" && backend == "cpu") || (e.path().extension() == ".cu" && backend == "cuda")))
      continue;
    Shipped k{e.path(), e.path().parent_path().parent_path().filename(), "", backend};
    auto meta = e.path();
    meta.replace_extension(".json");
    if (auto text = util::read_file(meta)) k.variant = nlohmann::json::parse(*text, nullptr, false).value("variant", "");
    out.push_back(k);
  }
  return out;
}

TEST(ShippedKernels, HaveNoFindings) {
  auto kernels = shipped();
  ASSERT_FALSE(kernels.empty());
  int analysed = 0;
  for (const auto& k : kernels) {
    auto source = util::read_file(k.source);
    ASSERT_TRUE(source) << k.source;
    const auto& s = spec(k.op);
    const auto* v = k.variant.empty() ? &s.variants.front() : s.find_variant(k.variant);
    ASSERT_NE(v, nullptr) << k.source;
    // CUDA: the bound launch plan and the first tunable configuration, as the pipeline passes them.
    Request req{s, *v, k.backend, *source, k.source.filename().string(), {}, {}};
    if (k.backend == "cuda") {
      auto plan = spec::parse_launch_plan(*source, k.source.filename().string());
      ASSERT_TRUE(plan) << plan.error().what();
      auto bound = spec::bind_launch_plan(*plan, s, k.source.filename().string(), v);
      ASSERT_TRUE(bound) << k.source << ": " << bound.error().what();
      req.launches = launches_of(*plan);
      req.flags = spec::config_defines(spec::tune_configs(*plan).front());
    }
    auto r = analyze(req);
    if (!r.available) {
      EXPECT_EQ(k.backend, "cuda") << k.source << ": " << r.unavailable_reason;
      continue;
    }
    ++analysed;
    EXPECT_TRUE(r.findings.empty()) << k.source << "\n" << dump(r);
    // The fast path (docs/benchmarks/analysis.md): no shipped kernel needs clang's CUDA wrapper.
    if (k.backend == "cuda") {
      EXPECT_EQ(r.parsed_with, "nvrtc-prelude") << k.source;
    }
  }
  if (analysed == 0) GTEST_SKIP() << "libclang not available";
}

TEST(Cache, SecondAnalysisIsServedFromTheCache) {
  std::string src = vector_add("static int calls; ++calls; c[0] = a[0];");
  auto first = run(src);
  KWB_REQUIRE_AVAILABLE(first);
  auto second = run(src);
  EXPECT_TRUE(second.cached);
  ASSERT_EQ(first.findings.size(), second.findings.size());
  for (size_t i = 0; i < first.findings.size(); ++i) EXPECT_EQ(format_finding(first.findings[i]), format_finding(second.findings[i]));
  // The key covers the variant's signature: the same text against another spec is analysed anew.
  auto other = run(src, "row_sum");
  EXPECT_FALSE(other.cached);
  EXPECT_EQ(count(other, "entry-signature"), 1) << dump(other);
  clear_cache();
  EXPECT_FALSE(run(src).cached);
}

TEST(Availability, MissingLibclangIsReportedNotFatal) {
  set_libclang_path("/nonexistent/libclang-19.so.1");
  auto r = run(vector_add("std::system(\"id\");", "#include <cstdlib>"));
  EXPECT_FALSE(r.available);
  EXPECT_NE(r.unavailable_reason.find("libclang not found: static analysis skipped"), std::string::npos)
      << r.unavailable_reason;
  EXPECT_TRUE(r.findings.empty());
  EXPECT_FALSE(r.has_errors());
  EXPECT_FALSE(warm_up("cpu"));
  set_libclang_path("none");
  EXPECT_NE(run(vector_add("")).unavailable_reason.find("disabled"), std::string::npos);
  set_libclang_path("");
}

TEST(Availability, MissingCudaHeadersOnlyDisableCuda) {
  auto before = run(vector_add(""));
  KWB_REQUIRE_AVAILABLE(before);
  set_cuda_path("/nonexistent/cuda");
  auto cuda = run("extern \"C\" __global__ void k(float* c) {}\n", "vector_add", "cuda", "f32", {"k"});
  EXPECT_FALSE(cuda.available);
  EXPECT_NE(cuda.unavailable_reason.find("CUDA headers not found"), std::string::npos) << cuda.unavailable_reason;
  EXPECT_TRUE(run(vector_add("")).available);
  set_cuda_path("");
}

TEST(Availability, UnknownBackend) {
  auto r = run(vector_add(""), "vector_add", "fpga");
  EXPECT_FALSE(r.available);
  EXPECT_NE(r.unavailable_reason.find("fpga"), std::string::npos);
}

TEST(Threads, ConcurrentAnalysesAgree) {
  auto probe = run(vector_add(""));
  KWB_REQUIRE_AVAILABLE(probe);
  clear_cache();
  std::vector<std::future<Report>> futures;
  for (int t = 0; t < 6; ++t)
    futures.push_back(std::async(std::launch::async, [t] {
      // Distinct sources (no cache hits): even threads write a static, odd ones are clean.
      std::string body = "c[0] = a[0] + " + std::to_string(t) + ";" + (t % 2 ? "" : " static int k; ++k;");
      return run(vector_add(body));
    }));
  for (int t = 0; t < 6; ++t) {
    auto r = futures[size_t(t)].get();
    ASSERT_TRUE(r.available) << r.unavailable_reason;
    EXPECT_EQ(count(r, "mutable-global-state"), t % 2 ? 0 : 1) << t << "\n" << dump(r);
  }
}

}  // namespace
}  // namespace kwb::analysis::test

namespace kwb::analysis::test {
namespace {

// 2^21 tokens from 23 lines: overflows the stack of libclang's parser thread.
std::string expansion_bomb() {
  std::string s = "#define M0 x+\n";
  for (int i = 1; i <= 21; ++i) s += "#define M" + std::to_string(i) + " M" + std::to_string(i - 1) + " M" + std::to_string(i - 1) + "\n";
  return s + "int x; int y = M21 0;\n";
}

TEST(Isolation, AParserCrashCostsAWorkerNotTheCaller) {
  auto probe = run(vector_add(""));
  KWB_REQUIRE_AVAILABLE(probe);
  auto r = run(expansion_bomb());
  ASSERT_TRUE(r.available) << r.unavailable_reason;
  const auto* e = r.first_error();
  ASSERT_NE(e, nullptr) << dump(r);
  EXPECT_EQ(e->rule, "parse");
  // "crashed", or "did not finish" on a machine slow enough to reach the timeout first.
  EXPECT_TRUE(e->message.find("crashed") != std::string::npos || e->message.find("did not finish") != std::string::npos)
      << e->message;
  // The next analysis gets a fresh worker.
  auto after = run(vector_add("c[0] = a[0];"));
  EXPECT_TRUE(after.available) << after.unavailable_reason;
  EXPECT_TRUE(after.findings.empty()) << dump(after);
}

TEST(Isolation, TimeoutIsAParseErrorAndIsNotCached) {
  auto probe = run(vector_add(""));
  KWB_REQUIRE_AVAILABLE(probe);
  set_timeout(std::chrono::milliseconds(1));
  std::string src = vector_add("c[0] = a[0] + 42;");
  auto r = run(src);
  set_timeout(std::chrono::milliseconds(30000));
  ASSERT_TRUE(r.available);
  ASSERT_NE(r.first_error(), nullptr) << dump(r);
  EXPECT_NE(r.first_error()->message.find("did not finish"), std::string::npos) << dump(r);
  EXPECT_TRUE(r.timed_out);
  auto again = run(src);
  EXPECT_FALSE(again.cached);
  EXPECT_FALSE(again.timed_out);
  EXPECT_TRUE(again.findings.empty()) << dump(again);
  // A request may set its own limit.
  const auto& s = spec("vector_add");
  Request req{s, s.variants.front(), "cpu", vector_add("c[0] = a[0] + 43;"), "k.cpp", {}, {}};
  req.timeout_ms = 1;
  EXPECT_TRUE(analyze(req).timed_out);
}

TEST(Isolation, MissingWorkerMakesAnalysisUnavailable) {
  use_test_cache_dir();
  set_worker_path("/nonexistent/kwb-analyzer");
  auto r = run(vector_add(""));
  EXPECT_FALSE(r.available);
  EXPECT_NE(r.unavailable_reason.find("kwb-analyzer"), std::string::npos) << r.unavailable_reason;
  set_worker_path(std::filesystem::path(KWB_TEST_BIN_DIR) / "kwb-analyzer");
}

TEST(Isolation, InProcessGivesTheSameFindings) {
  std::string src = vector_add("static int calls; ++calls; std::system(\"id\");", "#include <cstdlib>");
  auto worker = run(src);
  KWB_REQUIRE_AVAILABLE(worker);
  set_in_process(true);
  auto here = run(src);
  set_in_process(false);
  ASSERT_EQ(worker.findings.size(), here.findings.size()) << dump(worker) << dump(here);
  for (size_t i = 0; i < here.findings.size(); ++i)
    EXPECT_EQ(format_finding(worker.findings[i]), format_finding(here.findings[i]));
}

TEST(Isolation, SourcesThatAreNotUtf8TravelIntact) {
  std::string src = vector_add("const char* s = \"\xff\xfe\"; (void)s; c[0] = a[0];");
  auto r = run(src);
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_TRUE(r.findings.empty()) << dump(r);
}

}  // namespace
}  // namespace kwb::analysis::test
