#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "eval/ncu_csv.hpp"
#include "eval/ncu_report.hpp"
#include "util/fs.hpp"

namespace kwb::eval {
namespace {

std::string fixture(const std::string& name) {
  auto text = util::read_file(std::string(KWB_TEST_SOURCE_DIR) + "/tests/fixtures/ncu/" + name);
  EXPECT_TRUE(text.has_value()) << name;
  return text ? *text : std::string();
}

core::KernelProfile profile_of(const std::string& name) {
  auto profiles = ncu_profiles(fixture(name + ".raw.csv"));
  EXPECT_TRUE(profiles.has_value()) << (profiles ? "" : profiles.error().what());
  if (!profiles || profiles->empty()) return {};
  EXPECT_EQ(profiles->size(), 1u);
  return profiles->front();
}

bool says(const std::vector<std::string>& findings, std::string_view text) {
  return std::ranges::any_of(findings, [&](const std::string& f) { return f.find(text) != std::string::npos; });
}
bool has_finding(const core::KernelProfile& p, std::string_view text) { return says(p.findings, text); }

std::string findings_text(const core::KernelProfile& p) {
  std::string s;
  for (const auto& f : p.findings) s += f + "\n";
  return s;
}

TEST(NcuReport, NaiveTransposeStoresAreUncoalesced) {
  auto p = profile_of("transpose_naive");
  EXPECT_EQ(p.kernel, "transpose_naive");
  EXPECT_EQ(p.grid, "(128, 512, 1)");
  EXPECT_EQ(p.block, "(32, 8, 1)");
  // The numbers hold for the recording of tests/fixtures/record/probe.cu on the H200 as for the fixture.
  ASSERT_TRUE(p.global_store_sectors_per_request.has_value());
  EXPECT_GT(*p.global_store_sectors_per_request, 16);  // 32: each thread's store in a sector of its own
  EXPECT_LE(p.global_load_sectors_per_request.value_or(99), 8);  // 4: the rows are read coalesced
  EXPECT_TRUE(has_finding(p, "global stores use "));
  EXPECT_TRUE(has_finding(p, " sectors per request where 4 would do: uncoalesced (adjacent threads should write"))
      << findings_text(p);
  EXPECT_FALSE(has_finding(p, "global loads use")) << findings_text(p);
  ASSERT_FALSE(p.stalls.empty());
  EXPECT_TRUE(has_finding(p, "top stall: " + p.stalls.front().reason + " (")) << findings_text(p);
  EXPECT_GE(p.stalls.front().pct.value_or(0), p.stalls.back().pct.value_or(0));
  EXPECT_LE(p.stalls.size(), 5u);
  EXPECT_EQ(p.occupancy_limiter, "warps");  // at full theoretical occupancy: warps, as build/occupancy.cpp says
}

TEST(NcuReport, CopyAboveEightyPercentOfDramIsMemoryBound) {
  auto p = profile_of("copy_dram");
  ASSERT_TRUE(p.dram_sol_pct.has_value());
  EXPECT_GT(*p.dram_sol_pct, 80);
  EXPECT_TRUE(has_finding(p, fmt::format("memory-bound at {:.0f} % of DRAM peak: gains now need fewer bytes",
                                         *p.dram_sol_pct)))
      << findings_text(p);
  EXPECT_FALSE(has_finding(p, "uncoalesced")) << findings_text(p);  // 16 sectors: 16-byte accesses, coalesced
  EXPECT_FALSE(has_finding(p, "tensor pipes")) << findings_text(p);  // the SM is not busy
  ASSERT_TRUE(p.duration_ns.has_value());
  EXPECT_GT(*p.duration_ns, 1000);  // nanoseconds: 512 MiB moved take over 100 us
}

TEST(NcuReport, SpillingKernelAtTheRegisterCapGetsOccupancyAndSpillFindings) {
  auto p = profile_of("spill_255");
  EXPECT_EQ(p.registers_per_thread, 255);
  EXPECT_EQ(p.occupancy_limiter, "registers");
  EXPECT_LT(p.theoretical_occupancy_pct.value_or(100), 50);
  EXPECT_TRUE(has_finding(p, "limited by registers (255 per thread)")) << findings_text(p);
  EXPECT_TRUE(has_finding(p, "of local-memory traffic at 255 registers per thread")) << findings_text(p);
  EXPECT_GT(p.local_load_bytes.value_or(0), 0);
}

TEST(NcuReport, BankConflictsAreCountedAndNamed) {
  auto p = profile_of("bank_conflict");
  EXPECT_GT(p.shared_load_bank_conflicts.value_or(0), 0);
  EXPECT_EQ(p.shared_store_bank_conflicts, 0);  // the tile is written row-wise
  EXPECT_TRUE(has_finding(p, "-way on average): pad or swizzle the shared array")) << findings_text(p);
  EXPECT_FALSE(has_finding(p, "on stores")) << findings_text(p);
  EXPECT_FALSE(has_finding(p, "tensor pipes")) << findings_text(p);  // busy, but not bound by math
}

TEST(NcuReport, IdleTensorPipesAreNamedOnlyForAKernelBoundByMath) {
  core::KernelProfile p;
  p.sm_sol_pct = 91;
  p.memory_sol_pct = 30;
  p.tensor_pipe_pct = 0;
  EXPECT_TRUE(says(profile_findings(p), "the tensor pipes are idle (0 %)"));
  p.tensor_pipe_pct = 45;
  EXPECT_FALSE(says(profile_findings(p), "tensor pipes"));
  p.tensor_pipe_pct.reset();  // not measured: nothing said
  EXPECT_FALSE(says(profile_findings(p), "tensor pipes"));
}

TEST(NcuReport, FindingsWordTheirNumbers) {
  core::KernelProfile p;
  p.shared_load_bank_conflicts = 130023424;
  p.shared_load_wavefronts = 134217728;
  p.local_load_bytes = 281018368;
  p.local_store_bytes = 260046848;
  p.registers_per_thread = 255;
  p.global_load_sectors_per_request = 32;
  auto f = profile_findings(p);
  EXPECT_TRUE(says(f, "130,023,424 shared-memory bank conflicts on loads (32.0-way on average)"));
  EXPECT_TRUE(says(f, "541.1 MB of local-memory traffic at 255 registers per thread"));
  EXPECT_TRUE(says(f, "global loads use 32.0 sectors per request where 4 would do: uncoalesced (adjacent threads "
                      "should read adjacent addresses)"));
  p.shared_load_bank_conflicts = 1000;  // under 10 % extra wavefronts: not a pattern
  EXPECT_FALSE(says(profile_findings(p), "bank conflicts"));
}

TEST(NcuReport, MissingMetricsStayNullAndYieldNoFinding) {
  auto p = profile_of("missing_metrics");
  EXPECT_EQ(p.registers_per_thread, 16);
  EXPECT_FALSE(p.dram_sol_pct.has_value());  // "n/a"
  EXPECT_FALSE(p.l2_hit_pct.has_value());    // "n/a"
  EXPECT_FALSE(p.memory_sol_pct.has_value());  // not collected
  EXPECT_FALSE(p.achieved_occupancy_pct.has_value());
  EXPECT_FALSE(p.global_store_sectors_per_request.has_value());
  EXPECT_FALSE(p.shared_load_bank_conflicts.has_value());
  EXPECT_TRUE(p.occupancy_limiter.empty());
  EXPECT_TRUE(p.stalls.empty());
  EXPECT_TRUE(p.findings.empty()) << findings_text(p);
}

TEST(NcuReport, DetailsPageGivesNcuRulesByLaunch) {
  auto profiles = ncu_profiles(fixture("transpose_naive.raw.csv"), fixture("transpose_naive.details.csv"));
  ASSERT_TRUE(profiles.has_value());
  const auto& rules = profiles->at(0).ncu_rules;
  ASSERT_GE(rules.size(), 3u);
  auto it = std::ranges::find_if(rules, [](const auto& r) { return r.name == "UncoalescedGlobalAccess"; });
  ASSERT_NE(it, rules.end());
  EXPECT_EQ(it->section, "MemoryWorkloadAnalysis_Tables");
  EXPECT_EQ(it->type, "OPT");
  EXPECT_NE(it->text.find("uncoalesced global accesses"), std::string::npos);
  ASSERT_TRUE(it->estimated_speedup_pct.has_value());
  EXPECT_DOUBLE_EQ(*it->estimated_speedup_pct, 77.78);
  auto info = std::ranges::find_if(rules, [](const auto& r) { return r.type == "INF"; });
  ASSERT_NE(info, rules.end());
  EXPECT_FALSE(info->estimated_speedup_pct.has_value());
}

TEST(NcuReport, AForeignDetailsPageLeavesTheProfileWithoutRules) {
  auto profiles = ncu_profiles(fixture("transpose_naive.raw.csv"), "not,a,details,page\n");
  ASSERT_TRUE(profiles.has_value());
  EXPECT_TRUE(profiles->at(0).ncu_rules.empty());
  EXPECT_FALSE(profiles->at(0).findings.empty());
  EXPECT_FALSE(parse_ncu_rules("not,a,details,page\n").has_value());
}

TEST(NcuReport, MalformedCsvNamesTheLine) {
  std::string raw = fixture("transpose_naive.raw.csv");
  // Cut the data row short: its fields no longer match the header's.
  std::string cut = raw.substr(0, raw.rfind("\"kwb-gpu-runner\"") + 16) + "\n";
  auto r = parse_ncu_raw(cut);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().where.find("line 3"), std::string::npos) << r.error().what();
  EXPECT_NE(r.error().message.find("fields where the header (line 1) has"), std::string::npos) << r.error().what();
  auto open_quote = parse_ncu_raw("\"ID\",\"Kernel Name\n");
  ASSERT_FALSE(open_quote.has_value());
  EXPECT_NE(open_quote.error().what().find("line 1"), std::string::npos) << open_quote.error().what();
}

TEST(NcuReport, NoHeaderSaysWhyWithNcusError) {
  auto r = parse_ncu_raw(fixture("counters_not_permitted.txt"));
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("ERR_NVGPUCTRPERM"), std::string::npos) << r.error().what();
  auto empty = parse_ncu_raw("");
  ASSERT_FALSE(empty.has_value());
  EXPECT_NE(empty.error().message.find("no header row"), std::string::npos);
}

TEST(NcuReport, ProgramOutputAndProfMessagesAroundTheTableAreSkipped) {
  std::string text = "copy done\n==PROF== Connected to process 7 (/job/kwb-gpu-runner)\n" +
                     fixture("copy_dram.raw.csv") + "==PROF== Disconnected from process 7\n";
  auto r = parse_ncu_raw(text);
  ASSERT_TRUE(r.has_value()) << r.error().what();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ(r->at(0).kernel, "copy_f4");
}

TEST(NcuReport, UnitsAreScaledToNanosecondsAndBytes) {
  std::string text =
      "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\",\"l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum\"\n"
      "\"\",\"\",\"usecond\",\"Kbyte\"\n"
      "\"0\",\"k\",\"1,234.5\",\"2.5\"\n"
      "\"1\",\"k\",\"2.0e-01\",\"n/a\"\n";
  auto r = parse_ncu_raw(text);
  ASSERT_TRUE(r.has_value()) << r.error().what();
  ASSERT_EQ(r->size(), 2u);
  auto a = kernel_profile(r->at(0)), b = kernel_profile(r->at(1));
  EXPECT_DOUBLE_EQ(a.duration_ns.value_or(0), 1234500);
  EXPECT_EQ(a.local_store_bytes, 2500);
  EXPECT_DOUBLE_EQ(b.duration_ns.value_or(0), 200);
  EXPECT_FALSE(b.local_store_bytes.has_value());
}

TEST(NcuCsv, NumbersAndQuoting) {
  EXPECT_EQ(ncu_number("1,234,567"), 1234567);
  EXPECT_EQ(ncu_number(" 87.25 "), 87.25);
  EXPECT_FALSE(ncu_number("n/a").has_value());
  EXPECT_FALSE(ncu_number("").has_value());
  EXPECT_FALSE(ncu_number("(!) 12").has_value());
  auto csv = read_csv("\"a \"\"b\"\"\",c,\"multi\nline\"\n\n==PROF== x\n\"d\",\n");
  ASSERT_TRUE(csv.has_value());
  ASSERT_EQ(csv->records.size(), 2u);
  EXPECT_EQ(csv->records[0].fields, (std::vector<std::string>{"a \"b\"", "c", "multi\nline"}));
  EXPECT_EQ(csv->records[1].line, 5);
  EXPECT_EQ(csv->records[1].fields, (std::vector<std::string>{"d", ""}));
  EXPECT_EQ(csv->messages, (std::vector<std::string>{"==PROF== x"}));
}

TEST(NcuReport, TheMetricListIsTheRecordedOne) {
  // tests/fixtures/record/metrics.txt is what record.sh gives ncu on the GPU machine.
  std::stringstream list(*util::read_file(std::string(KWB_TEST_SOURCE_DIR) + "/tests/fixtures/record/metrics.txt"));
  std::vector<std::string> recorded;
  for (std::string line; std::getline(list, line);)
    if (!line.empty()) recorded.push_back(line);
  EXPECT_EQ(recorded, ncu_metrics());
  auto options = ncu_profile_options();
  EXPECT_NE(std::ranges::find(options, "--metrics"), options.end());
  EXPECT_NE(std::ranges::find(options, "WarpStateStats"), options.end());
}

}  // namespace
}  // namespace kwb::eval
