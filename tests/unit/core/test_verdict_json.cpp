#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "core/verdict.hpp"
#include "core/verdict_parse.hpp"

namespace kwb::core {
namespace {

using Json = nlohmann::json;

const Status k_all_status[] = {Status::accepted,    Status::incorrect,   Status::compile_error,
                               Status::rejected,    Status::sandbox_violation, Status::time_limit,
                               Status::memory_limit, Status::output_limit, Status::crashed, Status::no_device,
                               Status::error};

Verdict minimal() {
  Verdict v;
  v.candidate = "kernels/softmax/naive.cpp";
  v.op = "softmax";
  v.variant = "f32";
  v.backend = "cpu";
  v.status = Status::accepted;
  v.reason = "correct";
  v.device = "cpu0";
  v.toolchain = "g++ 12.2.0";
  return v;
}

TEST(VerdictJson, SchemaAndTopLevelFields) {
  Json j = to_json(minimal());
  EXPECT_EQ(j.at("schema"), "kwb.verdict.v1");
  EXPECT_EQ(j.at("candidate"), "kernels/softmax/naive.cpp");
  EXPECT_EQ(j.at("op"), "softmax");
  EXPECT_EQ(j.at("variant"), "f32");
  EXPECT_EQ(j.at("backend"), "cpu");
  EXPECT_EQ(j.at("status"), "accepted");
  EXPECT_EQ(j.at("reason"), "correct");
  EXPECT_EQ(j.at("device"), "cpu0");
  EXPECT_EQ(j.at("toolchain"), "g++ 12.2.0");
  EXPECT_TRUE(j.at("diagnostics").is_array());
  EXPECT_TRUE(j.at("diagnostics").empty());
  EXPECT_TRUE(j.at("workloads").is_array());
  EXPECT_TRUE(j.at("workloads").empty());
}

TEST(VerdictJson, StatusNamesForEveryStatus) {
  const char* expected[] = {"accepted", "incorrect", "compile_error", "rejected", "sandbox_violation",
                            "time_limit", "memory_limit", "output_limit", "crashed", "no_device", "error"};
  std::set<std::string> seen;
  for (size_t i = 0; i < std::size(k_all_status); ++i) {
    EXPECT_EQ(status_name(k_all_status[i]), expected[i]);
    Verdict v = minimal();
    v.status = k_all_status[i];
    EXPECT_EQ(to_json(v).at("status"), expected[i]);
    seen.insert(std::string(status_name(k_all_status[i])));
  }
  EXPECT_EQ(seen.size(), std::size(k_all_status));
}

TEST(VerdictJson, DefaultStatusIsError) {
  EXPECT_EQ(to_json(Verdict{}).at("status"), "error");
}

TEST(VerdictJson, DiagnosticsFields) {
  Verdict v = minimal();
  v.status = Status::compile_error;
  v.diagnostics.push_back({"naive.cpp", 12, 7, "error", "expected ';' before '}' token"});
  v.diagnostics.push_back({"naive.cpp", 3, 1, "note", "declared here"});
  Json j = to_json(v);
  ASSERT_EQ(j.at("diagnostics").size(), 2u);
  const Json& d = j.at("diagnostics")[0];
  EXPECT_EQ(d.at("file"), "naive.cpp");
  EXPECT_EQ(d.at("line"), 12);
  EXPECT_EQ(d.at("col"), 7);
  EXPECT_EQ(d.at("severity"), "error");
  EXPECT_EQ(d.at("message"), "expected ';' before '}' token");
  EXPECT_TRUE(d.at("rule").is_null());  // compiler output has no analysis rule
  EXPECT_EQ(j.at("diagnostics")[1].at("severity"), "note");
}

TEST(VerdictJson, DiagnosticRuleIdWhenPresent) {
  Verdict v = minimal();
  v.status = Status::rejected;
  core::Diagnostic d{"k.cpp", 1, 1, "error", "entry point has the wrong signature"};
  d.rule = "entry-signature";
  v.diagnostics.push_back(d);
  EXPECT_EQ(to_json(v).at("diagnostics")[0].at("rule"), "entry-signature");
}

TEST(VerdictJson, NanAndInfErrorsAreStrings) {
  Verdict v = minimal();
  v.status = Status::incorrect;
  WorkloadResult w;
  w.name = "2x3";
  w.kind = "test";
  w.correct = false;
  w.max_abs_err = std::numeric_limits<double>::infinity();
  w.max_rel_err = std::numeric_limits<double>::quiet_NaN();
  w.mismatches = 1;
  w.first_mismatch = Mismatch{"y", {1, 2}, std::numeric_limits<double>::quiet_NaN(),
                              -std::numeric_limits<double>::infinity()};
  v.workloads.push_back(w);
  Json j = to_json(v);
  const Json& jw = j.at("workloads")[0];
  EXPECT_EQ(jw.at("max_abs_err"), "inf");
  EXPECT_EQ(jw.at("max_rel_err"), "nan");
  EXPECT_EQ(jw.at("first_mismatch").at("got"), "nan");
  EXPECT_EQ(jw.at("first_mismatch").at("expected"), "-inf");
  EXPECT_EQ(jw.at("first_mismatch").at("tensor"), "y");
  EXPECT_EQ(jw.at("first_mismatch").at("index"), Json::array({1, 2}));
  // The whole record survives a dump/parse round trip (no invalid JSON numbers).
  const std::string text = j.dump();
  Json back = Json::parse(text);
  EXPECT_EQ(back.at("workloads")[0].at("max_abs_err"), "inf");
}

TEST(VerdictJson, FiniteErrorsAreNumbers) {
  Verdict v = minimal();
  WorkloadResult w;
  w.name = "1x1";
  w.kind = "test";
  w.max_abs_err = 0.25;
  w.max_rel_err = 1e-7;
  w.first_mismatch = Mismatch{"y", {0}, 1.5, 2.0};
  v.workloads.push_back(w);
  const Json j = to_json(v);
  const Json& jw = j.at("workloads")[0];
  ASSERT_TRUE(jw.at("max_abs_err").is_number());
  EXPECT_DOUBLE_EQ(jw.at("max_abs_err").get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(jw.at("max_rel_err").get<double>(), 1e-7);
  EXPECT_DOUBLE_EQ(jw.at("first_mismatch").at("got").get<double>(), 1.5);
}

TEST(VerdictJson, AbsentOptionalsAreNull) {
  Verdict v = minimal();
  WorkloadResult w;
  w.name = "big";
  w.kind = "bench";
  w.params = {{"rows", 64}, {"cols", 32}};
  w.checks = 3;
  v.workloads.push_back(w);
  Json j = to_json(v);
  const Json& jw = j.at("workloads")[0];
  EXPECT_TRUE(jw.at("time").is_null());
  EXPECT_TRUE(jw.at("roofline").is_null());
  EXPECT_TRUE(jw.at("first_mismatch").is_null());
  EXPECT_TRUE(jw.at("vs_incumbent").is_null());
  EXPECT_TRUE(jw.at("vs_baseline").is_null());
  EXPECT_EQ(jw.at("params").at("rows"), 64);
  EXPECT_EQ(jw.at("params").at("cols"), 32);
  EXPECT_EQ(jw.at("checks"), 3);
  EXPECT_EQ(jw.at("correct"), true);
  EXPECT_EQ(jw.at("kind"), "bench");
  const Json& s = j.at("summary");
  EXPECT_TRUE(s.at("geomean_vs_incumbent").is_null());
  EXPECT_TRUE(s.at("geomean_vs_baseline").is_null());
  EXPECT_TRUE(s.at("beats_incumbent").is_null());
}

TEST(VerdictJson, DrawnWorkloadsAreMarkedAndReadBack) {
  Verdict v = minimal();
  WorkloadResult published, drawn;
  published.name = "3x31";
  published.kind = "test";
  drawn.name = "drawn:rows=37,cols=1021";
  drawn.kind = "test";
  drawn.drawn = true;
  drawn.params = {{"rows", 37}, {"cols", 1021}};
  v.workloads = {published, drawn};
  Json j = to_json(v);
  EXPECT_EQ(j.at("workloads")[0].at("drawn"), false);
  EXPECT_EQ(j.at("workloads")[1].at("drawn"), true);
  EXPECT_EQ(j.at("workloads")[1].at("kind"), "test");
  auto back = verdict_from_json(j);
  ASSERT_TRUE(back.has_value()) << back.error().what();
  EXPECT_FALSE(back->workloads[0].drawn);
  EXPECT_TRUE(back->workloads[1].drawn);
  EXPECT_EQ(back->workloads[1].name, "drawn:rows=37,cols=1021");
  // Verdicts stored before drawn shapes have no "drawn": they read as published workloads.
  j["workloads"][1].erase("drawn");
  EXPECT_FALSE(verdict_from_json(j).value().workloads[1].drawn);
}

TEST(VerdictJson, PresentTimeAndRoofline) {
  Verdict v = minimal();
  WorkloadResult w;
  w.name = "big";
  w.kind = "bench";
  TimeStats t;
  t.median_ns = 1500;
  t.p10_ns = 1400;
  t.p90_ns = 1700;
  t.samples = 42;
  t.stop_reason = "converged";
  t.clock = "steady_clock";
  t.cold = false;
  w.time = t;
  RooflineResult r;
  r.bytes = 4096;
  r.flops = 0;
  r.pct_bw = 55.5;
  w.roofline = r;
  w.vs_incumbent = 1.25;
  v.workloads.push_back(w);
  v.summary.geomean_vs_incumbent = 1.25;
  v.summary.beats_incumbent = true;
  v.summary.wall_ms = 12.5;
  v.summary.stage_ms = {{"compile", 10.0}};
  Json j = to_json(v);
  const Json& jw = j.at("workloads")[0];
  ASSERT_TRUE(jw.at("time").is_object());
  EXPECT_EQ(jw.at("time").at("median_ns"), 1500.0);
  EXPECT_EQ(jw.at("time").at("samples"), 42);
  EXPECT_EQ(jw.at("time").at("stop_reason"), "converged");
  EXPECT_EQ(jw.at("time").at("clock"), "steady_clock");
  EXPECT_EQ(jw.at("time").at("cold"), false);
  ASSERT_TRUE(jw.at("roofline").is_object());
  EXPECT_EQ(jw.at("roofline").at("bytes"), 4096.0);
  EXPECT_EQ(jw.at("roofline").at("pct_bw"), 55.5);
  EXPECT_TRUE(jw.at("roofline").at("pct_flops").is_null());
  EXPECT_EQ(jw.at("vs_incumbent"), 1.25);
  EXPECT_TRUE(jw.at("vs_baseline").is_null());
  EXPECT_EQ(j.at("summary").at("geomean_vs_incumbent"), 1.25);
  EXPECT_EQ(j.at("summary").at("beats_incumbent"), true);
  EXPECT_EQ(j.at("summary").at("wall_ms"), 12.5);
  EXPECT_EQ(j.at("summary").at("stage_ms").at("compile"), 10.0);
}

}  // namespace
}  // namespace kwb::core
