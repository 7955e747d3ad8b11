// Running, waiting, limits and killing: real bwrap.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <thread>

#include "sandbox_test_util.hpp"

namespace kwb::sandbox::test {
namespace {

using std::chrono::milliseconds;

// Starts `script` under /usr/bin/bash with the write end of a pipe at an inherited fd and blocks
// (bounded) until the script writes a line to it: the script signals it is ready.
struct ReadyPipe {
  int r = -1, w = -1;
  ReadyPipe() {
    int p[2];
    EXPECT_EQ(pipe2(p, O_CLOEXEC), 0);
    r = p[0];
    w = fcntl(p[1], F_DUPFD, 50);  // without CLOEXEC: it is passed through
    close(p[1]);
  }
  ~ReadyPipe() {
    if (r >= 0) close(r);
    if (w >= 0) close(w);
  }
  std::string wait_line() {
    close(w);
    w = -1;
    pollfd p{r, POLLIN, 0};
    if (poll(&p, 1, 20'000) != 1) return "";
    char buf[256];
    ssize_t n = read(r, buf, sizeof buf);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
  }
};

// A bash script that starts `count` background `sleep <seconds>`, waits until each of them has
// exec'd sleep, reports "ready" on `fd` and then waits for them.
std::string sleepers_script(int count, const std::string& seconds, int fd) {
  std::string start, check;
  for (int i = 0; i < count; ++i) {
    std::string var = "p";
    var += std::to_string(i);
    start += "sleep " + seconds + " & " + var + "=$!; ";
    if (i) check += " && ";
    check += "[ \"$(readlink /proc/$" + var + "/exe)\" = /usr/bin/sleep ]";
  }
  return start + "until " + check + "; do :; done; echo ready >&" + std::to_string(fd) + "; wait";
}

TEST(SandboxRun, CapturesStdoutAndStderr) {
  TempDir job;
  Outcome o = run_ok(shell(job, "echo hello; echo oops >&2"));
  EXPECT_TRUE(o.ok());
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_EQ(o.stdout_text, "hello\n");
  EXPECT_EQ(o.stderr_text, "oops\n");
  EXPECT_FALSE(o.stdout_truncated);
  EXPECT_GT(o.wall_ms, 0);
}

TEST(SandboxRun, ReportsExitCode) {
  TempDir job;
  Outcome o = run_ok(shell(job, "exit 42"));
  EXPECT_EQ(o.exit_code, 42);
  EXPECT_EQ(o.signal, 0);
  EXPECT_FALSE(o.ok());
}

TEST(SandboxRun, SegfaultReadsAsSignal11) {
  TempDir job;
  Outcome o = run_ok(shell(job, "kill -SEGV $$"));
  EXPECT_EQ(o.signal, SIGSEGV);
  EXPECT_FALSE(o.timed_out);
  EXPECT_FALSE(o.ok());
}

TEST(SandboxRun, WallClockLimitKillsABusyLoop) {
  TempDir job;
  std::string marker = unique_marker("spin");
  Request req = shell(job, "while :; do :; done", run_profile());
  req.argv.push_back(marker);  // becomes $0, visible in the shell's cmdline
  req.profile.wall = milliseconds(300);
  Outcome o = run_ok(req);
  EXPECT_TRUE(o.timed_out);
  EXPECT_EQ(o.signal, SIGKILL);
  EXPECT_FALSE(o.ok());
  EXPECT_GE(o.wall_ms, 300);
  EXPECT_LT(o.wall_ms, 5000);
  EXPECT_TRUE(processes_with_arg(marker).empty());
}

TEST(SandboxRun, WallClockLimitKillsBackgroundChildren) {
  TempDir job;
  ReadyPipe ready;
  std::string seconds = "1000" + std::to_string(getpid());  // a unique argument for `sleep`
  Request req = make_request(job, {"/usr/bin/bash", "-c", sleepers_script(2, seconds, ready.w)});
  req.inherit_fds = {ready.w};
  auto p = spawn(req);
  ASSERT_TRUE(p) << p.error().what();
  ASSERT_EQ(ready.wait_line(), "ready\n");
  EXPECT_EQ(processes_with_arg(seconds).size(), 2u);  // the tree really exists
  Outcome o = (*p)->wait(milliseconds(200));
  EXPECT_TRUE(o.timed_out);
  EXPECT_TRUE(processes_with_arg(seconds).empty()) << "a sandboxed process survived";
  EXPECT_FALSE((*p)->running());
}

TEST(SandboxRun, KillStopsARunningSandbox) {
  TempDir job;
  auto p = spawn(shell(job, "while :; do :; done"));
  ASSERT_TRUE(p) << p.error().what();
  EXPECT_TRUE((*p)->running());
  EXPECT_GT((*p)->pid(), 0);
  (*p)->kill();
  Outcome o = (*p)->wait(milliseconds(20'000));
  EXPECT_EQ(o.signal, SIGKILL);
  EXPECT_FALSE(o.timed_out);
  EXPECT_FALSE((*p)->running());
  Outcome again = (*p)->wait(milliseconds(0));  // the outcome is kept
  EXPECT_EQ(again.signal, SIGKILL);
}

TEST(SandboxRun, DestroyingARunningProcessKillsAndReapsIt) {
  TempDir job;
  ReadyPipe ready;
  std::string seconds = "2000" + std::to_string(getpid());  // a unique argument for `sleep`
  Request req = make_request(job, {"/usr/bin/bash", "-c", sleepers_script(1, seconds, ready.w)});
  req.inherit_fds = {ready.w};
  pid_t pid;
  {
    auto p = spawn(req);
    ASSERT_TRUE(p) << p.error().what();
    pid = (*p)->pid();
    ASSERT_EQ(ready.wait_line(), "ready\n");
    EXPECT_EQ(processes_with_arg(seconds).size(), 1u);
  }
  EXPECT_EQ(waitpid(pid, nullptr, WNOHANG), -1);  // already reaped: no zombie
  EXPECT_EQ(errno, ECHILD);
  EXPECT_TRUE(processes_with_arg(seconds).empty());
}

TEST(SandboxRun, OutputFloodIsTruncatedAndTheCommandFinishes) {
  TempDir job;
  Profile profile = compile_profile();  // compile: excess output is dropped, the command goes on
  profile.output_bytes = 1000;
  Outcome o = run_ok(shell(job, "seq 1 300000; seq 1 300000 >&2; echo done > /job/finished", profile));
  EXPECT_TRUE(o.ok()) << o.stderr_text;
  EXPECT_FALSE(o.timed_out);
  const std::string note = "\n[kwb: output truncated after 1000 bytes]";
  for (const auto& [text, truncated] : {std::pair{o.stdout_text, o.stdout_truncated}, {o.stderr_text, o.stderr_truncated}}) {
    EXPECT_TRUE(truncated);
    EXPECT_EQ(text.size(), 1000 + note.size());
    EXPECT_TRUE(text.starts_with("1\n2\n3\n"));
    EXPECT_TRUE(text.ends_with(note));
  }
  EXPECT_EQ(read_text(job / "finished"), "done\n");
}

TEST(SandboxRun, OutputFloodIsStoppedInTheRunProfile) {
  TempDir job;
  Profile profile = run_profile();  // run: more output than allowed is a violation
  profile.output_bytes = 1000;
  Outcome o = run_ok(shell(job, "exec seq 1 300000", profile));
  EXPECT_TRUE(o.signal == SIGPIPE || o.signal == SIGKILL) << o.signal;  // the pipe closes, the sandbox is killed
  EXPECT_TRUE(o.output_limit_hit);
  EXPECT_TRUE(o.stdout_truncated);
  EXPECT_TRUE(o.stdout_text.starts_with("1\n2\n3\n"));
  EXPECT_EQ(o.stderr_text, "");
  auto b = breach(o, "the candidate");
  EXPECT_EQ(b.kind, Breach::output);
  EXPECT_NE(b.reason.find("more than 1000 bytes"), std::string::npos) << b.reason;
  // A command that ignores SIGPIPE is stopped too.
  o = run_ok(make_request(job, {"/usr/bin/bash", "-c", "trap '' PIPE; while :; do echo flood; done"}, profile));
  EXPECT_TRUE(o.output_limit_hit);
  EXPECT_EQ(o.signal, SIGKILL);
  EXPECT_FALSE(o.timed_out);
  EXPECT_LT(o.wall_ms, 5000);
  // Output within the cap is no violation.
  o = run_ok(shell(job, "seq 1 10", profile));
  EXPECT_TRUE(o.ok());
  EXPECT_FALSE(o.output_limit_hit);
}

TEST(SandboxRun, FileSizeLimitStopsLargeWrites) {
  TempDir job;
  Profile profile = compile_profile();
  profile.file_bytes = 1 << 20;
  Outcome o = run_ok(shell(job, "head -c 3000000 /dev/zero > /job/big", profile));
  EXPECT_FALSE(o.ok());
  EXPECT_TRUE(o.signal == SIGXFSZ || o.exit_code != 0) << o.signal << " " << o.exit_code;
  EXPECT_EQ(std::filesystem::file_size(job / "big"), 1u << 20);
}

TEST(SandboxRun, PrivateTmpIsSizeLimited) {
  TempDir job;
  Profile profile = run_profile();
  profile.tmp_bytes = 1 << 20;
  Outcome o = run_ok(shell(job, "head -c 3000000 /dev/zero > /tmp/big", profile));
  EXPECT_NE(o.exit_code, 0);
  EXPECT_NE(o.stderr_text.find("No space left"), std::string::npos) << o.stderr_text;
}

TEST(SandboxRun, MissingBwrapIsAnErrorNamingIt) {
  TempDir job;
  Request req = shell(job, "true");
  req.bwrap = "/nonexistent/kwb-bwrap";
  auto p = spawn(req);
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().what().find("/nonexistent/kwb-bwrap"), std::string::npos) << p.error().what();
  EXPECT_FALSE(run(req));
}

TEST(SandboxRun, MissingJobDirIsAnError) {
  TempDir job;
  Request req = shell(job, "true");
  req.job_dir = job / "missing";
  auto p = spawn(req);
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().what().find((job / "missing").string()), std::string::npos) << p.error().what();
}

TEST(SandboxRun, BadRequestsAreErrors) {
  TempDir job;
  Request req = shell(job, "true");
  req.inherit_fds = {1};
  EXPECT_FALSE(spawn(req));
  req.inherit_fds = {987};  // not open
  EXPECT_FALSE(spawn(req));
  req.inherit_fds = {};
  req.binds = {{job / "missing", "/x", false}};
  EXPECT_FALSE(spawn(req));
  req.binds = {};
  req.argv = {};
  EXPECT_FALSE(spawn(req));
}

TEST(SandboxRun, LeavesNoFdsThreadsOrChildren) {
  TempDir job;
  run_ok(shell(job, "true"));  // warm up (seccomp program, lazy allocations)
  size_t fds = count_entries("/proc/self/fd");
  size_t threads = count_entries("/proc/self/task");
  for (int i = 0; i < 10; ++i) {
    Outcome o = run_ok(shell(job, "echo $$"));
    EXPECT_TRUE(o.ok());
  }
  {
    auto p = spawn(shell(job, "sleep 1000"));
    ASSERT_TRUE(p);
  }
  EXPECT_EQ(count_entries("/proc/self/fd"), fds);
  EXPECT_EQ(count_entries("/proc/self/task"), threads);
  EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST(SandboxRun, ManyThreadsCanRunSandboxesAtOnce) {
  TempDir job;
  constexpr int k_threads = 4, k_runs = 5;
  std::vector<std::string> errors(k_threads);
  std::vector<std::thread> threads;
  for (int t = 0; t < k_threads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < k_runs; ++i) {
        std::string word = "t";
        word += std::to_string(t) + "-" + std::to_string(i);
        auto o = run(shell(job, "echo " + word + "; echo " + word + " >&2"));
        if (!o || o->stdout_text != word + "\n" || o->stderr_text != word + "\n" || !o->ok() || o->wall_ms > 2000) {
          errors[t] += word + (o ? " got '" + o->stdout_text + "' in " + std::to_string(o->wall_ms) + " ms; "
                                 : ": " + o.error().what() + "; ");
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& e : errors) EXPECT_EQ(e, "");
}

TEST(SandboxRun, ReapsTheSandboxInitWhenItIsReparentedToUs) {
  // bwrap exits without reaping its pid 1; a daemon that is pid 1 or a subreaper inherits it.
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  TempDir job;
  for (int i = 0; i < 3; ++i) run_ok(shell(job, "true"));
  auto p = spawn(shell(job, "while :; do :; done"));
  ASSERT_TRUE(p);
  (*p)->kill();
  EXPECT_EQ((*p)->wait(std::chrono::seconds(20)).signal, SIGKILL);
  errno = 0;
  EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1) << "a zombie was left to us";
  EXPECT_EQ(errno, ECHILD);
  prctl(PR_SET_CHILD_SUBREAPER, 0);
}

}  // namespace
}  // namespace kwb::sandbox::test
