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

namespace kwb::core {
namespace {

// Issue 19: compiler facts and per-workload feedback survive JSON and back (the table, the MCP
// tools and `kwb status` read verdicts from their JSON).
TEST(VerdictJson, FeedbackRoundTrips) {
  Verdict v = minimal();
  ConfigFacts c;
  c.config = "BLOCK=256";
  c.arch = "sm_90a";
  c.source = "nvrtc ptxas -v";
  c.ptx_sha256 = std::string(64, 'a');
  KernelFacts k;
  k.kernel = "softmax_rows";
  k.registers = 40;
  k.spill_store_bytes = 8;
  k.spill_load_bytes = 12;
  k.static_smem_bytes = 1024;
  k.max_threads_per_block = 1024;
  k.instructions.ld_global_v4 = 3;
  k.instructions.wgmma = 1;
  k.occupancy.push_back({256, 0, 6, 48, 75.0, "registers", 6, {"n1M"}});
  k.runner = RunnerKernelAttributes{40, 0, 1024, 1024};
  c.kernels.push_back(k);
  v.compiler_facts.push_back(c);
  WorkloadResult w;
  w.name = "n1M";
  w.kind = "bench";
  w.feedback = WorkloadFeedback{"BLOCK=256", 0.25, {{"calibrated", 4e12, 6e13, 15.0, "memory", 62.5, 37.5}}};
  v.workloads.push_back(w);
  Json j = to_json(v);
  EXPECT_EQ(j["compiler_facts"][0]["kernels"][0]["instructions"]["tensor_cores"], true);
  EXPECT_EQ(j["compiler_facts"][0]["kernels"][0]["occupancy"][0]["limited_by"], "registers");
  EXPECT_EQ(j["workloads"][0]["feedback"]["roofline"][0]["bound"], "memory");
  auto back = verdict_from_json(j);
  ASSERT_TRUE(back.has_value());
  ASSERT_EQ(back->compiler_facts.size(), 1u);
  const auto& bk = back->compiler_facts[0].kernels.at(0);
  EXPECT_EQ(bk.registers, 40);
  EXPECT_EQ(bk.spill_load_bytes, 12);
  EXPECT_EQ(bk.instructions.wgmma, 1);
  ASSERT_EQ(bk.occupancy.size(), 1u);
  EXPECT_EQ(bk.occupancy[0].runner_blocks_per_sm, 6);
  EXPECT_EQ(bk.occupancy[0].workloads, std::vector<std::string>{"n1M"});
  ASSERT_TRUE(bk.runner);
  EXPECT_EQ(bk.runner->static_smem_bytes, 1024);
  ASSERT_TRUE(back->workloads[0].feedback);
  EXPECT_EQ(back->workloads[0].feedback->roofline[0].headroom_pct, 37.5);
  EXPECT_EQ(to_json(*back), j);
  // Older verdicts have neither.
  Json old = to_json(minimal());
  old.erase("compiler_facts");
  old.erase("profile");
  auto parsed = verdict_from_json(old);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_TRUE(parsed->compiler_facts.empty());
  EXPECT_FALSE(parsed->profile);
}

TEST(VerdictJson, SassFactsAndProfileRoundTrip) {
  Verdict v = minimal();
  EXPECT_TRUE(to_json(v)["profile"].is_null());  // not asked for
  ConfigFacts c;
  c.config = "default";
  c.sass_note = "no SASS: nvdisasm failed (exit 1)";
  KernelFacts plain;
  plain.kernel = "no_sass";
  c.kernels.push_back(plain);
  KernelFacts k;
  k.kernel = "copy4";
  k.sass = SassMix{};
  k.sass->instructions = 20;
  k.sass->ldg_128 = 2;
  k.sass->stl = 1;
  k.sass->hgmma = 4;
  c.kernels.push_back(k);
  v.compiler_facts.push_back(c);
  v.profile = ProfileOutcome{"no_device", "no CUDA device on this machine"};
  Json j = to_json(v);
  const Json& f = j["compiler_facts"][0];
  EXPECT_TRUE(f["sass_sha256"].is_null());
  EXPECT_EQ(f["sass_note"], "no SASS: nvdisasm failed (exit 1)");
  EXPECT_TRUE(f["kernels"][0]["sass"].is_null());
  EXPECT_EQ(f["kernels"][1]["sass"]["ldg_128"], 2);
  EXPECT_EQ(f["kernels"][1]["sass"]["tensor_cores"], true);
  EXPECT_EQ(j["profile"]["status"], "no_device");
  auto back = verdict_from_json(j);
  ASSERT_TRUE(back.has_value());
  EXPECT_FALSE(back->compiler_facts[0].kernels[0].sass);
  ASSERT_TRUE(back->compiler_facts[0].kernels[1].sass);
  EXPECT_EQ(back->compiler_facts[0].kernels[1].sass->stl, 1);
  EXPECT_EQ(back->compiler_facts[0].kernels[1].sass->hgmma, 4);
  ASSERT_TRUE(back->profile);
  EXPECT_EQ(back->profile->reason, "no CUDA device on this machine");
  EXPECT_EQ(to_json(*back), j);
}

}  // namespace
}  // namespace kwb::core
