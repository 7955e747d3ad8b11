// Memory and process limits through a cgroup per job, the rlimit fallback, and how a breach is
// worded: real bwrap. Tests that need cgroups skip where they cannot be used (cgroup_status()).
#include <signal.h>

#include "sandbox_test_util.hpp"

namespace kwb::sandbox::test {
namespace {

#define KWB_NEED_CGROUPS()                                                              \
  if (!cgroup_status().enforced) GTEST_SKIP() << "no cgroups here: " << cgroup_status().detail

// Job cgroups of this process still present under the parent folders.
std::vector<std::string> my_job_cgroups() {
  std::vector<std::string> found;
  std::string prefix = "job-" + std::to_string(getpid()) + "-";
  for (const char* parent : {"/sys/fs/cgroup/kwb", "/sys/fs/cgroup/memory/kwb", "/sys/fs/cgroup/pids/kwb"}) {
    std::error_code ec;
    for (std::filesystem::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().filename().string().starts_with(prefix)) found.push_back(it->path().string());
    }
  }
  return found;
}

TEST(SandboxLimits, StatusSaysWhereJobCgroupsGo) {
  auto s = cgroup_status();
  EXPECT_FALSE(s.detail.empty());
  if (s.enforced) {
    EXPECT_TRUE(s.version == "v1" || s.version == "v2") << s.version;
    EXPECT_NE(s.detail.find("cgroup " + s.version), std::string::npos) << s.detail;
  }
}

TEST(SandboxLimits, MemoryBombIsKilledAndReported) {
  KWB_NEED_CGROUPS();
  TempDir job;
  Profile profile = run_profile();
  profile.memory_bytes = 64ll << 20;
  // The shell holds 256 MiB of command output in memory.
  Outcome o = run_ok(make_request(job, {"/usr/bin/bash", "-c", "x=$(head -c 268435456 /dev/zero | tr '\\0' a); echo survived"},
                                  profile));
  EXPECT_TRUE(o.memory_limit_hit) << o.stdout_text << o.stderr_text;
  EXPECT_TRUE(o.cgroup_enforced);
  EXPECT_GT(o.memory_peak_bytes, 32ll << 20);
  EXPECT_LE(o.memory_peak_bytes, 64ll << 20);
  auto b = breach(o, "the candidate");
  EXPECT_EQ(b.kind, Breach::memory);
  EXPECT_NE(b.reason.find("memory limit of 64 MiB"), std::string::npos) << b.reason;
  EXPECT_TRUE(my_job_cgroups().empty());
}

TEST(SandboxLimits, ProcessLimitStopsAForkBomb) {
  KWB_NEED_CGROUPS();
  TempDir job;
  Profile profile = run_profile();
  profile.max_processes = 16;
  if (!std::filesystem::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  std::string marker = unique_marker("forkbomb");
  // Forks sleepers until fork fails, then counts the processes it can see (pid 1 included).
  const std::string script = R"(
import os, sys, time
n = 0
while n < 500:
    try:
        pid = os.fork()
    except OSError as e:
        print("refused", e.errno)
        break
    if pid == 0:
        time.sleep(1000)
        os._exit(0)
    n += 1
print(len([d for d in os.listdir("/proc") if d.isdigit()]), flush=True)
)";
  Outcome o = run_ok(make_request(job, {"/usr/bin/python3", "-c", script, marker}, profile));
  auto out = lines(o.stdout_text);
  ASSERT_EQ(out.size(), 2u) << o.stdout_text << o.stderr_text;
  EXPECT_EQ(out[0], "refused 11");  // EAGAIN
  int visible = std::atoi(out[1].c_str());
  EXPECT_TRUE(o.process_limit_hit) << o.stdout_text << o.stderr_text;
  EXPECT_GT(visible, 2);
  EXPECT_LE(visible, 16) << o.stdout_text;  // bwrap's pid 1 and everything else inside
  EXPECT_TRUE(processes_with_arg(marker).empty());
  auto b = breach(o, "the candidate");
  EXPECT_NE((b.reason + b.note).find("limit of 16 processes and threads"), std::string::npos) << b.reason << b.note;
  EXPECT_TRUE(my_job_cgroups().empty());
}

TEST(SandboxLimits, JobCgroupHoldsTheSandboxAndIsRemovedAfterwards) {
  KWB_NEED_CGROUPS();
  TempDir job;
  auto p = spawn(make_request(job, {"/bin/sleep", "1000"}));
  ASSERT_TRUE(p) << p.error().what();
  auto groups = my_job_cgroups();
  ASSERT_EQ(groups.size(), cgroup_status().version == "v1" ? 2u : 1u);
  // bwrap itself is inside, so everything it starts is too.
  for (const auto& g : groups) {
    std::string procs = read_text(std::filesystem::path(g) / "cgroup.procs");
    EXPECT_NE(procs.find(std::to_string((*p)->pid()) + "\n"), std::string::npos) << g << ": " << procs;
    EXPECT_GE(lines(procs).size(), 2u) << procs;  // bwrap and its pid 1 at least
  }
  (*p)->kill();
  Outcome o = (*p)->wait(std::chrono::seconds(20));
  EXPECT_EQ(o.signal, SIGKILL);
  EXPECT_TRUE(my_job_cgroups().empty());
}

TEST(SandboxLimits, WithoutCgroupsMemoryFallsBackToAnAddressSpaceLimit) {
  set_cgroup_parent("off");
  TempDir job;
  Profile profile = run_profile();
  profile.memory_bytes = 512ll << 20;
  Outcome o = run_ok(shell(job, "grep 'Max address space' /proc/self/limits", profile));
  set_cgroup_parent("kwb");
  EXPECT_FALSE(o.cgroup_enforced);
  EXPECT_NE(o.limits.find("turned off"), std::string::npos) << o.limits;
  EXPECT_NE(o.stdout_text.find(std::to_string((512ll << 20) + (1ll << 30))), std::string::npos) << o.stdout_text;
  // With a cgroup there is no address-space limit (malloc fails late and clearly: OOM kill).
  if (cgroup_status().enforced) {
    o = run_ok(shell(job, "grep 'Max address space' /proc/self/limits", profile));
    EXPECT_TRUE(o.cgroup_enforced);
    EXPECT_NE(o.stdout_text.find("unlimited"), std::string::npos) << o.stdout_text;
  }
}

TEST(SandboxLimits, BreachWordsEachLimit) {
  Outcome o;
  o.profile = run_profile();
  EXPECT_EQ(breach(o, "x").kind, Breach::none);
  o.signal = SIGXCPU;
  EXPECT_EQ(breach(o, "x").kind, Breach::cpu_time);
  EXPECT_NE(breach(o, "x").reason.find("CPU time limit of 30 s"), std::string::npos);
  o.signal = SIGXFSZ;
  EXPECT_EQ(breach(o, "x").kind, Breach::file_size);
  o.signal = SIGKILL;
  o.timed_out = true;
  EXPECT_EQ(breach(o, "x").kind, Breach::wall_time);
  EXPECT_NE(breach(o, "x").reason.find("wall-clock limit of 10000 ms"), std::string::npos);
  o.timed_out = false;
  o.process_limit_hit = true;
  EXPECT_EQ(breach(o, "x").kind, Breach::processes);
  o.signal = SIGSYS;
  auto b = breach(o, "the compiler");
  EXPECT_EQ(b.kind, Breach::forbidden_syscall);
  EXPECT_TRUE(b.reason.starts_with("the compiler was killed by the sandbox's seccomp filter")) << b.reason;
  EXPECT_NE(b.note.find("limit of 64 processes"), std::string::npos);
  o.denied_syscall = "bpf";
  EXPECT_NE(breach(o, "x").reason.find("for calling bpf"), std::string::npos);
  o.memory_limit_hit = true;
  EXPECT_EQ(breach(o, "x").kind, Breach::memory);
  o.output_limit_hit = true;
  EXPECT_EQ(breach(o, "x").kind, Breach::output);
  EXPECT_NE(breach(o, "x").reason.find("more than 64 KiB"), std::string::npos);
}

}  // namespace
}  // namespace kwb::sandbox::test
