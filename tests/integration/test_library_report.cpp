// kwb library report (docs/library.md "Scorecard") against a real workspace: a library whose
// vector_add CPU incumbent is deliberately slow and holds a fast rival kernel of the same variant,
// plus a CUDA incumbent this GPU-less machine cannot run. --measure times both CPU kernels through
// the evaluation path of kwb eval and stores the report; the stored report reads back the same
// figures, through the CLI and through GET /v1/library/report of a daemon on the workspace.
#include <gtest/gtest.h>
#include <httplib.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "daemon_support.hpp"
#include "library/repository.hpp"
#include "light_bench_specs.hpp"

namespace {

using namespace kwb::test;

// ~40x slower than a plain loop (32 volatile round trips per element): far below the bar.
const char* k_slow = R"(#include <cstdint>
extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    volatile float x = a[i];
    for (int r = 0; r < 32; ++r) x = x;
    c[i] = x + b[i];
  }
}
)";
const char* k_fast = R"(#include <cstdint>
extern "C" void kwb_vector_add_f32(const float* __restrict a, const float* __restrict b, float* __restrict c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
)";
const char* k_meta = R"({"op": "vector_add", "variant": "f32", "backend": "cpu", "entry": "kwb_vector_add_f32",
  "summary": "test kernel", "author": "test"})";

class LibraryReport : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/kwb-library-report-XXXXXX";
    ASSERT_TRUE(::mkdtemp(tmpl));
    m_root = tmpl;
    auto cpu = m_root / "kernels" / "vector_add" / "cpu";
    auto cuda = m_root / "kernels" / "vector_add" / "cuda";
    std::filesystem::create_directories(cpu);
    std::filesystem::create_directories(cuda);
    std::ofstream(cpu / "slow.cpp") << k_slow;
    std::ofstream(cpu / "slow.json") << k_meta;
    for (const char* f : {"vectorized.cu", "vectorized.json"})
      std::filesystem::copy_file(source_dir() / "kernels" / "vector_add" / "cuda" / f, cuda / f);
    m_specs = light_vector_add_specs(m_root);
    // The rival: committed beside the incumbent, not dispatched.
    auto repo = kwb::library::Repository::open_or_seed(m_root / "ws" / "library", m_root / "kernels");
    ASSERT_TRUE(repo) << repo.error().what();
    auto head = (*repo)->head();
    ASSERT_TRUE(head);
    auto c = (*repo)->commit(*head, {{"vector_add/cpu/fast.cpp", k_fast}, {"vector_add/cpu/fast.json", k_meta}}, "a rival");
    ASSERT_TRUE(c && c->id);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(m_root, ec);
  }
  CommandResult report(const std::string& args) {
    return run_command((bin_dir() / "kwb").string() + " library report " + args + " --workspace " +
                       shell_quote((m_root / "ws").string()) + " --kernels-dir " + shell_quote((m_root / "kernels").string()) +
                       " --specs-dir " + shell_quote(m_specs.string()));
  }
  std::filesystem::path m_root, m_specs;
};

// The figures every form of the report must show for this library.
void expect_scorecard(const nlohmann::json& j) {
  ASSERT_EQ(j["schema"], "kwb.library_report.v1") << j.dump(2);
  ASSERT_EQ(j["rows"].size(), 2u) << j.dump(2);
  const auto& cpu = j["rows"][0]["backend"] == "cpu" ? j["rows"][0] : j["rows"][1];
  const auto& gpu = j["rows"][0]["backend"] == "cpu" ? j["rows"][1] : j["rows"][0];
  EXPECT_EQ(cpu["status"], "measured");
  EXPECT_EQ(cpu["kernel"], "vector_add/cpu/slow.cpp");
  EXPECT_EQ(cpu["workload"], "n1M");
  EXPECT_TRUE(cpu["device_class"].get<std::string>().starts_with("cpu-")) << cpu["device_class"];
  ASSERT_EQ(cpu["rivals"].size(), 1u);
  EXPECT_EQ(cpu["rivals"][0]["name"], "vector_add/cpu/fast.cpp");
  EXPECT_EQ(cpu["rivals"][0]["kind"], "library");
  const double inc = cpu["incumbent_ns"].get<double>(), fast = cpu["rivals"][0]["ns"].get<double>();
  EXPECT_GT(inc, 0);
  EXPECT_GT(fast, 0);
  EXPECT_DOUBLE_EQ(cpu["vs_fastest"].get<double>(), fast / inc);
  EXPECT_LT(cpu["vs_fastest"].get<double>(), 0.5) << "the slow incumbent against a plain loop";
  EXPECT_TRUE(cpu["roofline"]["pct_bw"].is_number());
  // A binding roof only where the peaks have a flop rate (the CPU calibration measures bandwidth).
  EXPECT_EQ(cpu["roofline"]["bound"] == "", cpu["roofline"]["pct_roof"].is_null()) << cpu["roofline"];
  EXPECT_FALSE(cpu["device"].get<std::string>().empty());
  EXPECT_EQ(gpu["status"], "no_device");
  EXPECT_TRUE(gpu["incumbent_ns"].is_null());
  ASSERT_EQ(j["families"].size(), 1u);
  const auto& f = j["families"][0];
  EXPECT_EQ(f["op"], "vector_add");
  EXPECT_EQ(f["rows"], 2);
  EXPECT_EQ(f["compared"], 1);
  EXPECT_EQ(f["at_bar"], 0);
  EXPECT_DOUBLE_EQ(f["share_at_bar"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(f["geomean_vs_fastest"].get<double>(), fast / inc);
  ASSERT_EQ(j["below_bar"].size(), 1u);
  EXPECT_EQ(j["below_bar"][0]["fastest"], "vector_add/cpu/fast.cpp");
  EXPECT_NEAR(j["below_bar"][0]["gap_pct"].get<double>(), (1 - fast / inc) * 100, 1e-9);
}

TEST_F(LibraryReport, MeasuredThenStoredThenServedWithTheSameFigures) {
  auto none = report("--json --init");
  ASSERT_EQ(none.exit_code, 0) << none.out;
  auto empty = nlohmann::json::parse(none.out, nullptr, false);
  EXPECT_EQ(empty["source"]["kind"], "none") << none.out;
  EXPECT_TRUE(empty["rows"].empty());

  auto measured = report("--measure --op vector_add --bench n1M --time-budget-ms 100 --json");
  ASSERT_EQ(measured.exit_code, 0) << measured.out;
  auto m = nlohmann::json::parse(measured.out, nullptr, false);
  expect_scorecard(m);
  EXPECT_EQ(m["source"]["kind"], "measured");
  EXPECT_TRUE(std::filesystem::exists(m["source"]["file"].get<std::string>()));

  auto stored = report("--json --check");
  EXPECT_EQ(stored.exit_code, 1) << "--check: a row is below the bar";
  auto s = nlohmann::json::parse(stored.out, nullptr, false);
  expect_scorecard(s);
  EXPECT_EQ(s["source"]["kind"], "stored");
  EXPECT_GE(s["source"]["age_s"].get<int64_t>(), 0);
  EXPECT_EQ(s["rows"], m["rows"]);

  auto table = report("");
  ASSERT_EQ(table.exit_code, 0);
  EXPECT_NE(table.out.find("below the bar: 1"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("vector_add/cpu/fast.cpp"), std::string::npos) << table.out;
  EXPECT_EQ(report("--op vector_add").exit_code, 2) << "--op without --measure is a usage error";

  DaemonProcess daemon;
  std::string error;
  ASSERT_TRUE(daemon.start({"--no-auth", "--kernels-dir", (m_root / "kernels").string(), "--specs-dir", m_specs.string()},
                           m_root / "ws", &error))
      << error;
  httplib::Client c("127.0.0.1", daemon.port());
  c.set_read_timeout(60, 0);
  auto r = c.Get("/v1/library/report");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  auto served = nlohmann::json::parse(r->body, nullptr, false);
  expect_scorecard(served);
  EXPECT_EQ(served["source"]["kind"], "stored");
  EXPECT_EQ(served["rows"], m["rows"]);
  auto unknown = c.Get("/v1/library/report?op=x");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 400) << unknown->body;
  auto op = c.Get("/v1/library/vector_add");  // the {op} route still answers for ops
  ASSERT_TRUE(op);
  EXPECT_EQ(op->status, 200) << op->body;
}

}  // namespace
