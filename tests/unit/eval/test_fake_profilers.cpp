// tests/fake_tools/ncu and compute-sanitizer (docs/profiles.md "Fake tools"): they run the wrapped
// command, pass its exit status through and write a recording the parsers read.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include "eval/ncu_report.hpp"
#include "eval/sanitizer_report.hpp"
#include "temp_dir.hpp"
#include "util/fs.hpp"

namespace kwb::eval {
namespace {

const std::string k_tools = std::string(KWB_TEST_SOURCE_DIR) + "/tests/fake_tools/";

// Runs `command` under a clean environment with `env` (as the sandbox has it); its exit status.
int run(const std::string& env, const std::string& command) {
  int status = std::system(("env -i PATH=/usr/bin:/bin LANG=C " + env + " " + command + " >/dev/null 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(FakeProfilers, NcuRunsTheCommandAndWritesTheRecordedRawPage) {
  test::TempDir dir;
  std::string log = (dir / "raw.csv").string(), marker = (dir / "ran").string();
  int rc = run("KWB_FAKE_NCU_FIXTURE=spill_255.raw.csv",
               k_tools + "ncu --section SpeedOfLight --metrics a,b --print-units base --csv --page raw --log-file " +
                   log + " /bin/sh -c 'touch " + marker + "; exit 3'");
  EXPECT_EQ(rc, 3);  // the wrapped command's status
  EXPECT_TRUE(std::filesystem::exists(marker));
  auto text = util::read_file(log);
  ASSERT_TRUE(text.has_value());
  auto profiles = ncu_profiles(*text);
  ASSERT_TRUE(profiles.has_value()) << profiles.error().what();
  ASSERT_EQ(profiles->size(), 1u);
  EXPECT_EQ(profiles->at(0).registers_per_thread, 255);
}

TEST(FakeProfilers, NcuExportThenImportGivesBothPages) {
  test::TempDir dir;
  std::string rep = (dir / "profile").string();
  EXPECT_EQ(run("", k_tools + "ncu --export " + rep + " --force-overwrite /bin/true"), 0);
  EXPECT_EQ(run("", k_tools + "ncu --import " + rep + ".ncu-rep --csv --page raw --log-file " + rep + ".raw"), 0);
  EXPECT_EQ(run("", k_tools + "ncu --import " + rep + ".ncu-rep --csv --page details --log-file " + rep + ".details"), 0);
  auto raw = util::read_file(rep + ".raw"), details = util::read_file(rep + ".details");
  ASSERT_TRUE(raw && details);
  auto profiles = ncu_profiles(*raw, *details);
  ASSERT_TRUE(profiles.has_value()) << profiles.error().what();
  EXPECT_EQ(profiles->at(0).kernel, "transpose_naive");  // the default recording
  EXPECT_FALSE(profiles->at(0).ncu_rules.empty());
}

TEST(FakeProfilers, NcuWithoutCountersFailsAfterRunningTheCommand) {
  test::TempDir dir;
  std::string log = (dir / "raw.csv").string();
  EXPECT_EQ(run("KWB_FAKE_NCU_FIXTURE=counters_not_permitted.txt",
                k_tools + "ncu --csv --page raw --log-file " + log + " /bin/true"),
            1);
  auto parsed = parse_ncu_raw(util::read_file(log).value_or(""));
  ASSERT_FALSE(parsed.has_value());
  EXPECT_NE(parsed.error().message.find("ERR_NVGPUCTRPERM"), std::string::npos);
}

TEST(FakeProfilers, SanitizerPicksTheRecordingPerToolAndHonoursErrorExitcode) {
  test::TempDir dir;
  std::string log = (dir / "race.log").string();
  EXPECT_EQ(run("KWB_FAKE_SANITIZER_FIXTURE_RACECHECK=racecheck_race.txt",
                k_tools + "compute-sanitizer --tool racecheck --error-exitcode 9 --log-file " + log + " /bin/true"),
            9);
  auto run_race = parse_sanitizer_report("racecheck", util::read_file(log).value_or(""));
  EXPECT_EQ(run_race.status, "findings");
  ASSERT_EQ(run_race.findings.size(), 1u);
  EXPECT_EQ(run_race.findings[0].line, 61);
  // The same environment, another tool: its clean recording, and the command's own status.
  std::string clean = (dir / "sync.log").string();
  EXPECT_EQ(run("KWB_FAKE_SANITIZER_FIXTURE_RACECHECK=racecheck_race.txt",
                k_tools + "compute-sanitizer --tool synccheck --error-exitcode 9 --log-file " + clean +
                    " /bin/sh -c 'exit 4'"),
            4);
  EXPECT_EQ(parse_sanitizer_report("synccheck", util::read_file(clean).value_or("")).status, "clean");
}

}  // namespace
}  // namespace kwb::eval
