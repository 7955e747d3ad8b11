#include <gtest/gtest.h>

#include <string>

#include "eval/sanitizer_report.hpp"
#include "util/fs.hpp"

namespace kwb::eval {
namespace {

std::string fixture(const std::string& name) {
  auto text = util::read_file(std::string(KWB_TEST_SOURCE_DIR) + "/tests/fixtures/sanitizer/" + name);
  EXPECT_TRUE(text.has_value()) << name;
  return text ? *text : std::string();
}

TEST(SanitizerReport, OutOfBoundsWriteNamesFileLineSizeThreadAndBlock) {
  auto run = parse_sanitizer_report("memcheck", fixture("memcheck_oob.txt"));
  EXPECT_EQ(run.status, "findings");
  EXPECT_EQ(run.error_count, 25);
  ASSERT_EQ(run.findings.size(), k_sanitizer_findings_kept);  // 24 writes and an API error: the first 10 kept
  const auto& f = run.findings.front();
  EXPECT_EQ(f.tool, "memcheck");
  EXPECT_EQ(f.kind, "invalid global write");
  EXPECT_TRUE(f.file.ends_with("probe.cu")) << f.file;
  EXPECT_EQ(f.line, 53);  // tests/fixtures/record/probe.cu: the unguarded store
  EXPECT_EQ(f.kernel, "oob_write");
  EXPECT_EQ(f.access_size_bytes, 4);
  EXPECT_EQ(f.thread, "(232,0,0)");
  EXPECT_EQ(f.block, "(3,0,0)");
  EXPECT_EQ(f.address, "0x7f5ee2000fa0");
  EXPECT_NE(f.detail.find("is out of bounds and is 1 bytes after the nearest allocation"), std::string::npos) << f.detail;
  EXPECT_EQ(f.message, "Invalid __global__ write of size 4 bytes");
  auto diags = sanitizer_diagnostics(run);
  ASSERT_EQ(diags.size(), k_sanitizer_findings_kept);
  EXPECT_EQ(diags[0].file, f.file);
  EXPECT_EQ(diags[0].line, 53);
  EXPECT_EQ(diags[0].severity, "error");
  EXPECT_EQ(diags[0].rule, "memcheck");
  for (const char* part : {"memcheck", "invalid global write of 4 bytes", "by thread (232,0,0)", "in block (3,0,0)",
                           "at address 0x7f5ee2000fa0", "in kernel oob_write"})
    EXPECT_NE(diags[0].message.find(part), std::string::npos) << part << " in " << diags[0].message;
}

TEST(SanitizerReport, TheApiErrorAfterADeviceFindingIsNoDiagnostic) {
  // Only the launch failure: kept, as the one thing there is to say.
  std::string text =
      "========= COMPUTE-SANITIZER\n"
      "========= Program hit CUDA_ERROR_LAUNCH_FAILED (error 719) due to \"unspecified launch failure\" on CUDA API "
      "call to cuCtxSynchronize.\n"
      "=========     Saved host backtrace up to driver entry point at error\n"
      "========= ERROR SUMMARY: 1 error\n";
  auto run = parse_sanitizer_report("memcheck", text);
  ASSERT_EQ(run.findings.size(), 1u);
  EXPECT_EQ(run.findings[0].kind, "CUDA API error");
  EXPECT_NE(run.findings[0].detail.find("CUDA_ERROR_LAUNCH_FAILED (error 719"), std::string::npos);
  EXPECT_EQ(sanitizer_diagnostics(run).size(), 1u);
  auto oob = parse_sanitizer_report("memcheck", fixture("memcheck_oob_old_format.txt"));
  for (const auto& d : sanitizer_diagnostics(oob)) EXPECT_EQ(d.message.find("CUDA API"), std::string::npos);
}

TEST(SanitizerReport, OlderLocationFormIsRead) {
  auto run = parse_sanitizer_report("memcheck", fixture("memcheck_oob_old_format.txt"));
  EXPECT_EQ(run.status, "findings");
  ASSERT_EQ(run.findings.size(), 1u);
  EXPECT_TRUE(run.findings[0].file.ends_with("probe.cu"));
  EXPECT_EQ(run.findings[0].line, 53);
  EXPECT_EQ(run.findings[0].kernel, "oob_write");
}

TEST(SanitizerReport, WrappedLocationLineIsJoined) {
  std::string text =
      "========= Invalid __global__ read of size 8 bytes\n"
      "=========     at scale(const double *, double *, int)+0x70\n"
      "=========        in /job/candidate.cu:53\n"
      "=========     by thread (1,0,0) in block (0,0,0)\n"
      "========= ERROR SUMMARY: 1 error\n";
  auto run = parse_sanitizer_report("memcheck", text);
  ASSERT_EQ(run.findings.size(), 1u);
  EXPECT_EQ(run.findings[0].kind, "invalid global read");
  EXPECT_EQ(run.findings[0].access_size_bytes, 8);
  EXPECT_EQ(run.findings[0].kernel, "scale(const double *, double *, int)");
  EXPECT_EQ(run.findings[0].line, 53);
}

TEST(SanitizerReport, RacecheckRaceNamesBothLines) {
  auto run = parse_sanitizer_report("racecheck", fixture("racecheck_race.txt"));
  EXPECT_EQ(run.status, "findings");
  EXPECT_EQ(run.error_count, 1);
  ASSERT_EQ(run.findings.size(), 1u);
  const auto& f = run.findings[0];
  EXPECT_EQ(f.kind, "shared memory hazard (RAW)");
  EXPECT_TRUE(f.file.ends_with("probe.cu"));
  EXPECT_EQ(f.line, 61);  // the write to s[t]
  EXPECT_EQ(f.other_line, 62);  // the read of s[t + 1]
  EXPECT_EQ(f.kernel, "smem_race");
  EXPECT_EQ(f.hazards, 2040);
  auto diags = sanitizer_diagnostics(run);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].line, 61);
  EXPECT_EQ(diags[0].rule, "racecheck");
  EXPECT_NE(diags[0].message.find("racecheck: shared memory hazard (RAW) between line 61 and line 62 (2040 hazards)"),
            std::string::npos)
      << diags[0].message;
}

TEST(SanitizerReport, RacecheckWarningsAreCountedApart) {
  auto run = parse_sanitizer_report("racecheck", fixture("racecheck_nosync.txt"));
  EXPECT_EQ(run.status, "findings");
  EXPECT_EQ(run.error_count, 1);
  EXPECT_EQ(run.warning_count, 1);
  ASSERT_EQ(run.findings.size(), 2u);
  EXPECT_EQ(run.findings[0].kind, "shared memory hazard (WAR)");
  EXPECT_EQ(run.findings[1].severity, "warning");
  EXPECT_EQ(run.findings[1].kind, "shared memory hazard (WAW)");
  EXPECT_EQ(sanitizer_diagnostics(run)[1].severity, "warning");
}

TEST(SanitizerReport, RacecheckHazardReportGivesThreadsAndLines) {
  auto run = parse_sanitizer_report("racecheck", fixture("racecheck_hazard.txt"));
  EXPECT_EQ(run.error_count, 3);
  ASSERT_EQ(run.findings.size(), 3u);
  const auto& f = run.findings[0];
  EXPECT_EQ(f.kind, "shared memory hazard (RAW)");
  EXPECT_EQ(f.address, "0x4");
  EXPECT_EQ(f.block, "(0,0,0)");
  EXPECT_EQ(f.thread, "(1,0,0)");
  EXPECT_EQ(f.line, 61);
  EXPECT_EQ(f.other_line, 62);
}

TEST(SanitizerReport, SynccheckBarrierError) {
  auto run = parse_sanitizer_report("synccheck", fixture("synccheck_divergent.txt"));
  EXPECT_EQ(run.status, "findings");
  EXPECT_EQ(run.error_count, 2);
  ASSERT_EQ(run.findings.size(), 2u);
  EXPECT_EQ(run.findings[0].kind, "barrier error");
  EXPECT_EQ(run.findings[0].detail, "Divergent thread(s) in block");
  EXPECT_EQ(run.findings[0].line, 82);  // the barrier half the block reaches
  EXPECT_EQ(run.findings[1].block, "(1,0,0)");
  EXPECT_NE(sanitizer_diagnostics(run)[0].message.find("synccheck: barrier error"), std::string::npos);
}

TEST(SanitizerReport, InitcheckUninitializedRead) {
  auto run = parse_sanitizer_report("initcheck", fixture("initcheck_uninit.txt"));
  EXPECT_EQ(run.error_count, 1024);
  ASSERT_EQ(run.findings.size(), 1u);
  EXPECT_EQ(run.findings[0].kind, "uninitialized global read");
  EXPECT_EQ(run.findings[0].access_size_bytes, 4);
  EXPECT_EQ(run.findings[0].line, 89);
  EXPECT_EQ(run.findings[0].address, "0x7f5ee2000000");
}

TEST(SanitizerReport, CleanRuns) {
  for (const char* tool : {"memcheck", "racecheck", "synccheck", "initcheck"}) {
    auto run = parse_sanitizer_report(tool, fixture(std::string(tool) + "_clean.txt"));
    EXPECT_EQ(run.status, "clean") << tool;
    EXPECT_EQ(run.error_count, 0) << tool;
    EXPECT_TRUE(run.findings.empty()) << tool;
    EXPECT_TRUE(run.reason.empty()) << tool;
    EXPECT_TRUE(sanitizer_diagnostics(run).empty()) << tool;
  }
}

TEST(SanitizerReport, TruncatedOutputFailsWithAReasonAndKeepsWhatItSaw) {
  auto run = parse_sanitizer_report("memcheck", fixture("memcheck_truncated.txt"));
  EXPECT_EQ(run.status, "failed");
  EXPECT_NE(run.reason.find("no ERROR SUMMARY line"), std::string::npos) << run.reason;
  ASSERT_EQ(run.findings.size(), 1u);
  EXPECT_EQ(run.findings[0].line, 53);
}

TEST(SanitizerReport, ToolThatNeverRanTheProgramFails) {
  auto run = parse_sanitizer_report("memcheck", fixture("not_started.txt"));
  EXPECT_EQ(run.status, "failed");
  EXPECT_NE(run.reason.find("terminated before first instrumented API call"), std::string::npos) << run.reason;
  auto empty = parse_sanitizer_report("racecheck", "");
  EXPECT_EQ(empty.status, "failed");
  EXPECT_NE(empty.reason.find("wrote nothing"), std::string::npos);
}

TEST(SanitizerReport, GarbageNeverCrashes) {
  const char* inputs[] = {"\xff\xfe garbage\n", "=========\n=========     \n", "========= Error: Race reported between\n",
                          "========= Invalid __global__ write of size\n=========     at \n", "ERROR SUMMARY: x errors\n",
                          "========= Barrier error detected.\n=========     at +0x in :\n",
                          "========= ERROR SUMMARY: 99999999999999999999999 errors\n"};
  for (const char* in : inputs) {
    auto run = parse_sanitizer_report("memcheck", in);
    EXPECT_FALSE(run.status.empty()) << in;
    if (run.status == "failed") {
      EXPECT_FALSE(run.reason.empty()) << in;
    }
    (void)sanitizer_diagnostics(run);
  }
}

TEST(SanitizerReport, ProgramOutputBetweenPrefixedLinesIsIgnored) {
  std::string text = "copy done\nError: Race reported between Write access at a+0x1 in x.cu:1 and Read access at "
                     "a+0x2 in x.cu:2\n" + fixture("memcheck_clean.txt");
  auto run = parse_sanitizer_report("racecheck", text);
  EXPECT_EQ(run.status, "clean");
  EXPECT_TRUE(run.findings.empty());
}

}  // namespace
}  // namespace kwb::eval

namespace {

// A candidate's host code shares the sandbox with the tool and could append a clean summary of
// its own to the log: two summaries are not a clean run, nor is a report under a summary of none.
TEST(SanitizerReportTamper, TwoSummariesAreNotClean) {
  std::string text = "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 3 errors\n========= ERROR SUMMARY: 0 errors\n";
  auto run = kwb::eval::parse_sanitizer_report("memcheck", text);
  EXPECT_EQ(run.status, "failed") << run.reason;
  EXPECT_NE(run.reason.find("2 ERROR SUMMARY lines"), std::string::npos) << run.reason;
}

TEST(SanitizerReportTamper, AReportUnderASummaryOfNoneCounts) {
  std::string text =
      "========= COMPUTE-SANITIZER\n========= Invalid __global__ write of size 4 bytes\n"
      "=========     at k+0x70 in candidate.cu:7\n=========     by thread (1,0,0) in block (0,0,0)\n"
      "=========     Address 0x10 is out of bounds\n========= \n========= ERROR SUMMARY: 0 errors\n";
  auto run = kwb::eval::parse_sanitizer_report("memcheck", text);
  EXPECT_EQ(run.status, "findings") << run.reason;
  EXPECT_EQ(run.error_count, 1);
}

}  // namespace
