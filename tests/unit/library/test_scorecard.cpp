// The scorecard's arithmetic (docs/library.md "Scorecard") on hand-made rows: the fastest rival,
// the ratio to it, the share of rows at the bar and the geomean per op family, the rows below the
// bar with their gap; and the stored report read back with its age and stale rows.
#include <gtest/gtest.h>

#include <cmath>

#include "library/scorecard.hpp"
#include "library/scorecard_store.hpp"
#include "temp_dir.hpp"
#include "util/fs.hpp"

namespace kwb::library {
namespace {

ScoreRow row(const std::string& op, const std::string& workload, std::optional<double> incumbent,
             std::vector<Rival> rivals) {
  ScoreRow r;
  r.op = op;
  r.variant = "f32";
  r.backend = "cuda";
  r.device_class = "cuda-sm_90";
  r.workload = workload;
  r.kernel = op + "/cuda/k.cu";
  r.incumbent_ns = incumbent;
  r.rivals = std::move(rivals);
  return r;
}

TEST(Scorecard, TheFastestRivalIsTheSmallestTimeAndTheRatioIsItsTimeOverTheIncumbents) {
  auto r = row("gemm", "m4096", 1000.0,
               {{"cublas", "baseline", 800.0}, {"gemm/cuda/b.cu", "library", 900.0}, {"gemm/cuda/c.cu", "library", std::nullopt, "incorrect"}});
  auto best = fastest_rival(r);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->name, "cublas");
  EXPECT_EQ(best->kind, "baseline");
  EXPECT_DOUBLE_EQ(*vs_fastest(r), 0.8);
  r.incumbent_ns = 400.0;  // faster than every rival: above 1
  EXPECT_DOUBLE_EQ(*vs_fastest(r), 2.0);
}

TEST(Scorecard, NoRatioWithoutATimedRivalOrWithoutTheIncumbentsTime) {
  EXPECT_FALSE(vs_fastest(row("scan", "n1M", 1000.0, {})));
  EXPECT_FALSE(vs_fastest(row("scan", "n1M", 1000.0, {{"cub", "baseline", std::nullopt, "no_device"}})));
  EXPECT_FALSE(vs_fastest(row("scan", "n1M", std::nullopt, {{"cub", "baseline", 10.0}})));
}

TEST(Scorecard, FamiliesCountTheShareAtTheBarAndTheGeomeanOverComparedRowsOnly) {
  std::vector<ScoreRow> rows = {
      row("gemm", "a", 100.0, {{"cublas", "baseline", 99.0}}),   // 0.99: exactly at the bar
      row("gemm", "b", 100.0, {{"cublas", "baseline", 98.9}}),   // 0.989: below
      row("gemm", "c", 100.0, {{"cublas", "baseline", 400.0}}),  // 4.0
      row("gemm", "d", 100.0, {}),                               // unrivalled
      row("softmax", "x", std::nullopt, {}),                     // not measured
  };
  auto f = family_scores(rows);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].op, "gemm");
  EXPECT_EQ(f[0].rows, 4);
  EXPECT_EQ(f[0].compared, 3);
  EXPECT_EQ(f[0].at_bar, 2);
  EXPECT_EQ(f[0].unrivalled, 1);
  EXPECT_DOUBLE_EQ(*f[0].share_at_bar, 2.0 / 3);
  EXPECT_NEAR(*f[0].geomean, std::cbrt(0.99 * 0.989 * 4.0), 1e-12);
  EXPECT_EQ(f[1].op, "softmax");
  EXPECT_EQ(f[1].compared, 0);
  EXPECT_EQ(f[1].unrivalled, 0);
  EXPECT_FALSE(f[1].share_at_bar);
  EXPECT_FALSE(f[1].geomean);
}

TEST(Scorecard, RowsBelowTheBarAreListedWithTheirGapLargestFirst) {
  std::vector<ScoreRow> rows = {
      row("gemm", "small", 100.0, {{"cublas", "baseline", 95.0}}),
      row("gemm", "big", 100.0, {{"cublas", "baseline", 59.0}}),
      row("scan", "n1M", 100.0, {{"cub", "baseline", 100.0}}),
      row("scan", "n16M", 100.0, {{"scan/cuda/other.cu", "library", 98.0}}),
  };
  auto below = below_bar(rows);
  ASSERT_EQ(below.size(), 3u);
  EXPECT_EQ(rows[below[0].row].workload, "big");
  EXPECT_NEAR(below[0].gap_pct, 41.0, 1e-9);
  EXPECT_EQ(rows[below[1].row].workload, "small");
  EXPECT_NEAR(below[1].gap_pct, 5.0, 1e-9);
  EXPECT_EQ(below[2].fastest, "scan/cuda/other.cu");
  EXPECT_NEAR(below[2].vs_fastest, 0.98, 1e-12);
  EXPECT_TRUE(below_bar(rows, 0.5).empty());  // another bar
}

TEST(Scorecard, TheReportJsonCarriesRowsFamiliesBelowTheBarAndTotalsAndReadsBack) {
  auto r = row("gemm", "m512", 100.0, {{"cublas", "baseline", 90.0}});
  r.pct_bw = 42.5;
  r.pct_flops_sheet = 27.0;
  r.bound = "compute";
  r.pct_roof = 61.5;
  r.device = "NVIDIA H200";
  auto j = report_json({r, row("gemm", "m4096", 100.0, {{"cublas", "baseline", 150.0}})}, {{"kind", "measured"}});
  EXPECT_EQ(j["schema"], k_report_schema);
  EXPECT_EQ(j["rows"].size(), 2u);
  EXPECT_DOUBLE_EQ(j["rows"][0]["vs_fastest"].get<double>(), 0.9);
  EXPECT_EQ(j["rows"][0]["fastest"]["name"], "cublas");
  EXPECT_DOUBLE_EQ(j["rows"][0]["roofline"]["pct_bw"].get<double>(), 42.5);
  EXPECT_TRUE(j["rows"][0]["roofline"]["pct_bw_sheet"].is_null());
  EXPECT_EQ(j["rows"][0]["roofline"]["bound"], "compute");
  EXPECT_DOUBLE_EQ(j["rows"][0]["roofline"]["pct_roof"].get<double>(), 61.5);
  EXPECT_EQ(j["families"][0]["at_bar"], 1);
  EXPECT_DOUBLE_EQ(j["totals"]["share_at_bar"].get<double>(), 0.5);
  ASSERT_EQ(j["below_bar"].size(), 1u);
  EXPECT_NEAR(j["below_bar"][0]["gap_pct"].get<double>(), 10.0, 1e-9);
  auto back = rows_of_report(j);
  ASSERT_TRUE(back) << back.error().what();
  EXPECT_EQ(report_json(*back, {{"kind", "measured"}}), j);
  EXPECT_NE(report_table(j).find("1/2 at the bar (50.0%)"), std::string::npos) << report_table(j);
  EXPECT_NE(report_table(j).find("cmp 61.5"), std::string::npos) << report_table(j);
}

TEST(Scorecard, AReportWithABadRowNamesIt) {
  auto j = report_json({row("gemm", "a", 1.0, {})}, {});
  j["rows"][0].erase("workload");
  auto back = rows_of_report(j);
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error().where, "rows[0].workload");
  EXPECT_FALSE(rows_of_report(nlohmann::json{{"schema", "other"}}));
}

TEST(Scorecard, AMeasurementOfOneOpKeepsThePreviousReportsOtherRows) {
  auto old_gemm = row("gemm", "m512", 100.0, {});
  old_gemm.measured_at = "2026-01-01T00:00:00Z";
  auto old_softmax = row("softmax", "r4096", 50.0, {});
  auto previous = report_json({old_gemm, old_softmax}, {});
  auto new_gemm = row("gemm", "m512", 90.0, {});
  auto merged = merge_rows({new_gemm}, previous);
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_EQ(merged[0].op, "gemm");
  EXPECT_DOUBLE_EQ(*merged[0].incumbent_ns, 90.0);  // the new figure replaces the old one of the same row
  EXPECT_EQ(merged[1].op, "softmax");               // the other op's is kept
  auto other_class = new_gemm;
  other_class.device_class = "cuda-sm_80";
  EXPECT_EQ(merge_rows({other_class}, previous).size(), 3u);
  EXPECT_EQ(merge_rows({new_gemm}, nlohmann::json{{"schema", "other"}}).size(), 1u);
}

TEST(ScorecardStore, AgesAreSecondsSinceAUtcStamp) {
  auto t = std::chrono::system_clock::from_time_t(1'700'000'000);
  const std::string stamp = utc_stamp(t);
  EXPECT_EQ(stamp, "2023-11-14T22:13:20Z");
  EXPECT_EQ(age_s(stamp, t + std::chrono::hours(3)), 3 * 3600);
  EXPECT_FALSE(age_s("yesterday", t));
}

TEST(ScorecardStore, TheNewestStoredReportIsReadBackWithRowsOfAnotherIncumbentMarkedStale) {
  test::TempDir dir;
  auto repo = Repository::open_or_seed(dir / "lib", std::filesystem::path(KWB_TEST_SOURCE_DIR) / "kernels");
  ASSERT_TRUE(repo) << repo.error().what();
  auto none = stored_report(dir / "reports", **repo);
  ASSERT_TRUE(none) << none.error().what();
  EXPECT_EQ(none->at("source")["kind"], "none");
  EXPECT_TRUE(none->at("rows").empty());

  ScoreRow kept = row("vector_add", "n1M", 100.0, {});
  kept.backend = "cpu";
  kept.device_class = "cpu-x86_64-v3";
  kept.kernel = "vector_add/cpu/vectorized.cpp";  // the seeded incumbent ("any")
  ScoreRow gone = kept;
  gone.workload = "n16M";
  gone.kernel = "vector_add/cpu/f32_c-0000000000000000.cpp";
  nlohmann::json source = {{"kind", "measured"}, {"measured_at", "2026-01-01T00:00:00Z"}, {"devices", {"AMD EPYC"}}};
  ASSERT_TRUE(save_report(dir / "reports", report_json({kept}, source)));
  ASSERT_TRUE(save_report(dir / "reports", report_json({kept, gone}, source)));  // the newer one
  auto back = stored_report(dir / "reports", **repo);
  ASSERT_TRUE(back) << back.error().what();
  EXPECT_EQ(back->at("source")["kind"], "stored");
  EXPECT_GT(back->at("source")["age_s"].get<int64_t>(), 0);
  EXPECT_NE(back->at("source")["detail"].get<std::string>().find("AMD EPYC"), std::string::npos);
  ASSERT_EQ(back->at("rows").size(), 2u);
  EXPECT_FALSE(back->at("rows")[0]["stale"].get<bool>());
  EXPECT_TRUE(back->at("rows")[1]["stale"].get<bool>());

  ASSERT_TRUE(util::write_file_atomic(dir / "reports" / "report-9999.json", "{not json"));
  auto bad = stored_report(dir / "reports", **repo);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().what().find("report-9999.json"), std::string::npos);
}

}  // namespace
}  // namespace kwb::library
