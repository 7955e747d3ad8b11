// Issue 15 #11: bwrap killed from outside at any moment of its start-up (before or after it has
// cloned the sandbox's pid 1, before pid 1 armed --die-with-parent, before it started the
// command) must leave nothing behind, and the Outcome must say it was killed from outside (a
// fault of the machine, not of the command).
#include <signal.h>

#include <chrono>
#include <random>

#include "sandbox_test_util.hpp"

namespace kwb::sandbox::test {
namespace {

// Host processes whose command line or environment holds `marker`: bwrap and its pid 1 (the
// command's words are on their command lines), the shell, and the shell's children (the
// environment).
std::vector<pid_t> processes_marked(const std::string& marker) {
  std::vector<pid_t> found;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string text = read_text(entry.path() / "cmdline") + read_text(entry.path() / "environ");
    if (text.find(marker) != std::string::npos) found.push_back(std::stoi(name));
  }
  return found;
}

// Spawns a long-running command, kills bwrap (only bwrap) after a random delay of up to
// `max_delay_us` and checks that wait() leaves no process of it alive. Returns the failures.
std::vector<std::string> kill_race(int tries, int max_delay_us) {
  std::vector<std::string> failures;
  std::mt19937 rng(12345);
  TempDir job;
  for (int i = 0; i < tries; ++i) {
    std::string marker = unique_marker("race");
    Request req = shell(job, "sleep 1000 & sleep 1000; : " + marker);
    req.env.push_back({"KWB_RACE_MARKER", marker});
    auto p = spawn(req);
    if (!p) {
      failures.push_back("spawn: " + std::string(p.error().what()));
      continue;
    }
    // A deliberate random delay (not a synchronisation): it places the kill anywhere in bwrap's
    // set-up of the sandbox (about 10 ms) or just after it.
    auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(rng() % (max_delay_us + 1));
    while (std::chrono::steady_clock::now() < until) {
    }
    ::kill((*p)->pid(), SIGKILL);
    auto started = std::chrono::steady_clock::now();
    Outcome o = (*p)->wait(std::chrono::seconds(30));
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    auto left = processes_marked(marker);
    std::string where = "try " + std::to_string(i) + ": ";
    if (!left.empty()) failures.push_back(where + std::to_string(left.size()) + " processes left, e.g. pid " + std::to_string(left.front()));
    if (!o.killed_from_outside || o.signal != SIGKILL) failures.push_back(where + "not reported as killed from outside");
    if (breach(o, "the command").kind != Breach::outside_kill) failures.push_back(where + "breach is not outside_kill");
    if (ms > 5000) failures.push_back(where + "wait() took " + std::to_string(int(ms)) + " ms");
  }
  return failures;
}

TEST(SandboxKillRace, BwrapKilledDuringStartLeavesNothingWithoutCgroups) {
  set_cgroup_parent("off");  // nothing but the launcher itself can clean up here
  auto failures = kill_race(100, 15000);
  set_cgroup_parent("kwb");
  EXPECT_TRUE(failures.empty()) << failures.size() << " failures, first: " << failures.front();
}

TEST(SandboxKillRace, BwrapKilledDuringStartLeavesNothingWithCgroups) {
  if (!cgroup_status().enforced) GTEST_SKIP() << "no job cgroups here: " << cgroup_status().detail;
  auto failures = kill_race(30, 15000);
  EXPECT_TRUE(failures.empty()) << failures.size() << " failures, first: " << failures.front();
}

TEST(SandboxKillRace, AKillByTheWorkbenchIsNotFromOutside) {
  TempDir job;
  auto p = spawn(shell(job, "sleep 1000"));
  ASSERT_TRUE(p);
  (*p)->kill();
  Outcome o = (*p)->wait(std::chrono::seconds(20));
  EXPECT_EQ(o.signal, SIGKILL);
  EXPECT_FALSE(o.killed_from_outside);
  EXPECT_NE(breach(o, "the command").kind, Breach::outside_kill);
}

}  // namespace
}  // namespace kwb::sandbox::test
