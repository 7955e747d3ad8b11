// What the command can see and do inside the sandbox: real bwrap.
#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <csignal>
#include <set>
#include <string_view>

#include "sandbox_test_util.hpp"
#include "util/fs.hpp"

namespace kwb::sandbox::test {
namespace {

TEST(SandboxIsolation, EnvironmentIsExactlyTheRequestedOne) {
  ASSERT_EQ(setenv("KWB_TEST_SECRET", "hunter2-sandbox", 1), 0);
  TempDir job;
  Request req = make_request(job, {"/usr/bin/env"});
  req.env = {{"PATH", "/usr/bin"}, {"KWB_VISIBLE", "a=b c"}};
  Outcome o = run_ok(req);
  auto got = lines(o.stdout_text);
  std::sort(got.begin(), got.end());
  // bwrap itself adds PWD after --chdir; nothing else comes in.
  EXPECT_EQ(got, (std::vector<std::string>{"KWB_VISIBLE=a=b c", "PATH=/usr/bin", "PWD=/job"}));

  // Every process visible inside, bwrap's own pid 1 included, has no host variable.
  o = run_ok(shell(job, "for f in /proc/[0-9]*/environ; do echo \"== $f\"; tr '\\0' '\\n' < $f; done; "
                        "wc -c < /proc/1/environ"));
  EXPECT_TRUE(o.ok()) << o.stderr_text;
  EXPECT_NE(o.stdout_text.find("== /proc/1/environ"), std::string::npos);
  EXPECT_TRUE(o.stdout_text.ends_with("\n0\n")) << o.stdout_text;  // bwrap ran with an empty environment
  for (const std::string& text : {o.stdout_text, o.stderr_text}) {
    EXPECT_EQ(text.find("KWB_TEST_SECRET"), std::string::npos) << text;
    EXPECT_EQ(text.find("hunter2"), std::string::npos) << text;
  }
  unsetenv("KWB_TEST_SECRET");
}

TEST(SandboxIsolation, RunsAsNobodyWithoutCapabilities) {
  TempDir job;
  Outcome o = run_ok(shell(job, "id -u; id -g; grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb)' /proc/self/status"));
  ASSERT_TRUE(o.ok()) << o.stderr_text;
  auto got = lines(o.stdout_text);
  ASSERT_EQ(got.size(), 7u) << o.stdout_text;
  EXPECT_EQ(got[0], "65534");
  EXPECT_EQ(got[1], "65534");
  for (size_t i = 2; i < got.size(); ++i) EXPECT_TRUE(got[i].ends_with("0000000000000000")) << got[i];
}

TEST(SandboxIsolation, HasNoNetwork) {
  // A listener on the host's loopback that the sandbox must not reach.
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(listener, 4), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  std::string port = std::to_string(ntohs(addr.sin_port));

  TempDir job;
  Outcome o = run_ok(shell(job, "cat /proc/net/dev"));
  std::vector<std::string> interfaces;
  for (const auto& line : lines(o.stdout_text)) {
    if (auto colon = line.find(':'); colon != std::string::npos && line.find('|') == std::string::npos) {
      std::string name = line.substr(0, colon);
      name.erase(0, name.find_first_not_of(' '));
      interfaces.push_back(name);
    }
  }
  EXPECT_EQ(interfaces, std::vector<std::string>{"lo"}) << o.stdout_text;

  o = run_ok(make_request(job, {"/usr/bin/bash", "-c", "echo hi > /dev/tcp/127.0.0.1/" + port}));
  EXPECT_NE(o.exit_code, 0);
  EXPECT_LT(accept(listener, nullptr, nullptr), 0);  // nothing connected
  close(listener);
}

TEST(SandboxIsolation, OnlyJobAndTmpAreWritable) {
  TempDir job;
  Outcome o = run_ok(shell(job,
                           "touch /usr/kwb-x 2>/dev/null && echo usr; touch /kwb-x 2>/dev/null && echo root; "
                           "mkdir /kwb-d 2>/dev/null && echo rootdir; touch /dev/kwb-x 2>/dev/null && echo dev; "
                           "touch /dev/shm/kwb-x 2>/dev/null && echo shm; test -e /etc/passwd && echo etc; "
                           "touch /tmp/kwb-x && echo tmp; echo data > /job/out && echo job",
                           compile_profile()));
  EXPECT_EQ(o.stdout_text, "tmp\njob\n") << o.stderr_text;
  EXPECT_EQ(read_text(job / "out"), "data\n");
  EXPECT_FALSE(std::filesystem::exists("/usr/kwb-x"));
}

TEST(SandboxIsolation, RunsCannotWriteTheJobDir) {
  TempDir job;
  write_text(job / "candidate.so", "object");
  Outcome o = run_ok(shell(job, "cat /job/candidate.so; echo x > /job/new 2>/dev/null && echo wrote; "
                                "ln -s /etc/passwd /job/link 2>/dev/null && echo linked; rm -f /job/candidate.so; "
                                "echo x > /tmp/scratch && echo tmp"));
  EXPECT_EQ(o.stdout_text, "objecttmp\n") << o.stderr_text;
  EXPECT_EQ(count_entries(job.path()), 1u);
  EXPECT_EQ(read_text(job / "candidate.so"), "object");
}

TEST(SandboxIsolation, TrustedSideDoesNotFollowLinksPlantedInTheJobDir) {
  // A compile job can write /job: it plants links to host files and folders. The trusted side
  // reads outputs with O_NOFOLLOW and removes the job dir without following links.
  TempDir job, victim;
  write_text(victim / "precious", "keep me");
  Outcome o = run_ok(shell(job, "ln -s " + (victim / "precious").string() + " /job/candidate.so && ln -s " +
                                    victim.path().string() + " /job/dir && mkdir /job/sub && ln -s " +
                                    victim.path().string() + " /job/sub/deeper && echo planted",
                           compile_profile()));
  ASSERT_EQ(o.stdout_text, "planted\n") << o.stderr_text;
  auto read = util::read_file_nofollow(job / "candidate.so", 1 << 20);
  EXPECT_FALSE(read);  // ELOOP: the link is not followed
  std::error_code ec;
  std::filesystem::remove_all(job.path(), ec);
  EXPECT_FALSE(std::filesystem::exists(job.path()));
  EXPECT_EQ(read_text(victim / "precious"), "keep me");
}

TEST(SandboxIsolation, KernelSettingsAreReadOnly) {
  // The sandbox's uid is the host's uid 0, which sysctl files trust by permission bits alone; a
  // writable /proc/sys/kernel/core_pattern would run any program as root on the host. Each probe
  // writes back the value it read, so a failure changes nothing on the machine running the test.
  TempDir job;
  std::string script;
  for (const char* knob : {"/proc/sys/kernel/core_pattern", "/proc/sys/kernel/modprobe", "/proc/sys/vm/swappiness",
                           "/proc/sys/net/ipv4/ip_forward", "/proc/sysrq-trigger"}) {
    std::string k = knob;
    script += "if [ -e " + k + " ]; then v=$(cat " + k + " 2>/dev/null); printf '%s' \"$v\" > " + k +
              " 2>/dev/null && echo 'wrote " + k + "'; fi; ";
  }
  script += "cat /proc/keys /proc/timer_list 2>/dev/null | wc -c";
  Outcome o = run_ok(shell(job, script, compile_profile()));
  EXPECT_EQ(o.stdout_text, "0\n") << o.stderr_text;
}

TEST(SandboxIsolation, TmpIsPrivate) {
  TempDir job;
  std::string inside = unique_marker("inside-tmp");
  std::string host = unique_marker("host-tmp");
  write_text("/tmp/" + host, "host");
  Outcome o = run_ok(shell(job, "echo x > /tmp/" + inside + " && ls /tmp; test -e /tmp/" + host + " && echo leak"));
  std::filesystem::remove("/tmp/" + host);
  EXPECT_EQ(o.stdout_text, inside + "\n");
  EXPECT_FALSE(std::filesystem::exists("/tmp/" + inside));
}

TEST(SandboxIsolation, OnlyRequestedFdsAreInherited) {
  TempDir job;
  int passed = fcntl(open((job / "passed").c_str(), O_WRONLY | O_CREAT, 0644), F_DUPFD, 100);
  int leaked = fcntl(open((job / "leaked").c_str(), O_WRONLY | O_CREAT, 0644), F_DUPFD, passed + 1);
  ASSERT_GE(passed, 100);
  ASSERT_GT(leaked, passed);
  Request req = make_request(job, {"/usr/bin/bash", "-c", "ls /proc/self/fd; echo through >&" + std::to_string(passed)});
  req.inherit_fds = {passed};
  Outcome o = run_ok(req);
  close(passed);
  close(leaked);
  EXPECT_TRUE(o.ok()) << o.stderr_text;
  std::set<std::string> fds;
  for (const auto& line : lines(o.stdout_text)) fds.insert(line);
  // 0-2, the inherited fd, and the directory `ls` itself opened (the lowest free number).
  EXPECT_EQ(fds, (std::set<std::string>{"0", "1", "2", "3", std::to_string(passed)})) << o.stdout_text;
  EXPECT_EQ(read_text(job / "passed"), "through\n");

  o = run_ok(shell(job, "cat"));  // stdin is /dev/null: returns at once
  EXPECT_TRUE(o.ok());
  EXPECT_EQ(o.stdout_text, "");
}

TEST(SandboxIsolation, JobDirShadowsAnEarlierBindAtTheSamePath) {
  TempDir job, other;
  write_text(job / "from-job", "");
  write_text(other / "from-bind", "");
  Request req = shell(job, "ls /job; ls /kwb");
  req.binds = {{other.path(), "/job", true}, {other.path(), "/kwb", false}};
  Outcome o = run_ok(req);
  EXPECT_EQ(o.stdout_text, "from-job\nfrom-bind\n") << o.stderr_text;
  // The read-only bind really is read-only.
  req.argv = {"/bin/sh", "-c", "touch /kwb/x"};
  EXPECT_NE(run_ok(req).exit_code, 0);
}

TEST(SandboxIsolation, CompilesAndRunsWithGxx) {
  if (!std::filesystem::exists("/usr/bin/g++")) GTEST_SKIP() << "no /usr/bin/g++";
  TempDir job;
  write_text(job / "a.cpp", "#include <cstdio>\nint main() { std::puts(\"compiled-ok\"); return 3; }\n");
  Outcome c = run_ok(make_request(job, {"g++", "-O2", "a.cpp", "-o", "a"}, compile_profile()));
  ASSERT_TRUE(c.ok()) << c.stderr_text;
  Outcome r = run_ok(make_request(job, {"./a"}));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.stdout_text, "compiled-ok\n");
}

// Runs python3 in the sandbox; skips the test without it.
#define KWB_NEED_PYTHON()                                                      \
  if (!std::filesystem::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3"

TEST(SandboxIsolation, SeccompRefusesProbedSyscallsWithEperm) {
  KWB_NEED_PYTHON();
  TempDir job;
  // Outside a filter io_uring_setup(1, NULL) fails with EFAULT and an AF_INET socket can be made.
  const char* script = R"(
import ctypes, socket
libc = ctypes.CDLL(None, use_errno=True)
def call(*args):
    r = libc.syscall(*args)
    return "%d %d" % (r, ctypes.get_errno() if r < 0 else 0)
print("io_uring_setup", call(425, 1, None))
for name, family, kind in (("inet", socket.AF_INET, socket.SOCK_STREAM), ("inet6", socket.AF_INET6, socket.SOCK_DGRAM),
                           ("netlink", socket.AF_NETLINK, socket.SOCK_RAW), ("unix", socket.AF_UNIX, socket.SOCK_STREAM)):
    try:
        socket.socket(family, kind).close(); print(name, "ok")
    except OSError as e:
        print(name, "errno", e.errno)
)";
  Outcome o = run_ok(make_request(job, {"/usr/bin/python3", "-c", script}));
  EXPECT_EQ(o.stdout_text, "io_uring_setup -1 1\ninet errno 1\ninet6 errno 1\nnetlink errno 1\nunix ok\n")
      << o.stderr_text;
}

TEST(SandboxIsolation, SeccompKillsOnHostileSyscallsAndNamesThem) {
  KWB_NEED_PYTHON();
  TempDir job;
  // x86-64 numbers: ptrace 101, mount 165, unshare 272, setns 308, bpf 321, perf_event_open 298,
  // userfaultfd 323, keyctl 250, init_module 175, process_vm_readv 310.
  for (auto [nr, name] : std::vector<std::pair<int, std::string>>{{101, "ptrace"}, {165, "mount"}, {272, "unshare"},
                                                                   {308, "setns"}, {321, "bpf"}, {298, "perf_event_open"},
                                                                   {323, "userfaultfd"}, {250, "keyctl"},
                                                                   {175, "init_module"}, {310, "process_vm_readv"}}) {
    std::string script = "import ctypes, sys; print('before', flush=True); ctypes.CDLL(None).syscall(" +
                         std::to_string(nr) + ", 0, 0, 0, 0, 0); print('survived', flush=True)";
    Outcome o = run_ok(make_request(job, {"/usr/bin/python3", "-c", script}));
    EXPECT_EQ(o.signal, SIGSYS) << name << ": " << o.stderr_text;
    EXPECT_EQ(o.stdout_text, "before\n") << name;
    auto b = breach(o, "the command");
    EXPECT_EQ(b.kind, Breach::forbidden_syscall) << name;
    // Naming the call needs a readable /dev/kmsg; where there is one, the name must be among
    // those named (a sandbox of a test running in parallel, killed at the same moment, can add
    // its own call: "mount or unshare").
    if (!o.denied_syscall.empty()) {
      bool named = false;
      std::string_view rest = o.denied_syscall;
      for (size_t cut; !named && !rest.empty(); rest = cut == rest.npos ? "" : rest.substr(cut + 4)) {
        cut = rest.find(" or ");
        named = rest.substr(0, cut) == name;
      }
      // The kernel log can also drop this sandbox's own record (audit rate limit) while a
      // parallel test's kill, logged after this sandbox started, is still read (seen under
      // ctest -j2 with the strict runner filter killing forks): the name is then another
      // call's. The kill itself and the SIGSYS are asserted above either way.
      if (!named) std::printf("note: %s named '%s' (a parallel sandbox's record)\n", name.c_str(), o.denied_syscall.c_str());
      EXPECT_NE(b.reason.find("for calling "), std::string::npos) << b.reason;
      if (named) {
        EXPECT_NE(b.reason.find(name), std::string::npos) << b.reason;
      }
    } else {
      EXPECT_NE(b.reason.find("one of ptrace"), std::string::npos) << b.reason;
    }
  }
}

TEST(SandboxIsolation, StrictFilterKillsOnProbesAndNewProcessesButAllowsThreads) {
  // Issue 15 #13: for candidate code, what the ordinary filter refuses quietly is a kill that the
  // verdict sees, and so is starting a process; threads keep working (clone3 -> ENOSYS -> clone).
  KWB_NEED_PYTHON();
  TempDir job;
  Profile strict = run_profile();
  strict.strict_seccomp = true;
  const char* threads = "import threading; t = threading.Thread(target=lambda: print('thread', flush=True)); "
                        "t.start(); t.join(); print('joined', flush=True)";
  Outcome ok = run_ok(make_request(job, {"/usr/bin/python3", "-c", threads}, strict));
  EXPECT_TRUE(ok.ok()) << ok.stderr_text;
  EXPECT_EQ(ok.stdout_text, "thread\njoined\n");
  for (auto [what, script] : std::vector<std::pair<std::string, std::string>>{
           {"socket", "import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM)"},
           {"io_uring_setup", "import ctypes; ctypes.CDLL(None).syscall(425, 1, None)"},
           {"clone", "import os; os.fork()"},
           {"fork", "import ctypes; ctypes.CDLL(None).syscall(57)"}}) {
    Outcome o = run_ok(make_request(job, {"/usr/bin/python3", "-c", "print('before', flush=True); " + script +
                                                                     "; print('survived', flush=True)"},
                                    strict));
    EXPECT_EQ(o.signal, SIGSYS) << what << ": " << o.stderr_text;
    EXPECT_EQ(o.stdout_text, "before\n") << what;
    auto b = breach(o, "the command");
    EXPECT_EQ(b.kind, Breach::forbidden_syscall) << what;
    // The name is best effort (kernel_log.hpp): under ctest -j2 the kernel's printk rate limit can
    // drop this sandbox's record while a parallel sandbox's kill is read (seen in CI: this loop's
    // record missing, "userfaultfd" from SeccompKillsOnHostileSyscallsAndNamesThem read instead).
    if (!o.denied_syscall.empty() && o.denied_syscall.find(what) == std::string::npos)
      std::printf("note: %s named '%s' (a parallel sandbox's record)\n", what.c_str(), o.denied_syscall.c_str());
  }
  // The ordinary filter still refuses a socket quietly (compilers and the GPU runner get it).
  Outcome quiet = run_ok(make_request(job, {"/usr/bin/python3", "-c", "import socket\ntry:\n socket.socket()\nexcept OSError as e:\n print(e.errno)"}));
  EXPECT_EQ(quiet.stdout_text, "1\n") << quiet.stderr_text;
}

TEST(SandboxIsolation, OpeningADecoyHostSecretIsReportedAndAnythingElseIsNot) {
  // Issue 15 #13: /etc/shadow is not in the sandbox, so reading it failed quietly (ENOENT) and
  // the attempt was invisible. Candidate runs get decoys there: the open is seen from outside.
  TempDir job;
  Profile p = run_profile();
  p.decoys = candidate_decoys();
  // Honest work (including probes of missing files and stats of the decoys) reports nothing.
  Outcome honest = run_ok(shell(job, "cat /nonexistent 2>/dev/null; test -e /etc/shadow && echo present; ls /job >/dev/null", p));
  EXPECT_TRUE(honest.ok()) << honest.stderr_text;
  EXPECT_EQ(honest.stdout_text, "present\n");
  EXPECT_TRUE(honest.decoys_opened.empty());
  EXPECT_EQ(breach(honest, "the command").kind, Breach::none);
  // Reading two of them is reported by path, the contents are fake, and the breach names them.
  Outcome o = run_ok(shell(job, "head -c 12 /etc/shadow; cat /root/.ssh/id_rsa > /dev/null; echo", p));
  EXPECT_TRUE(o.ok()) << o.stderr_text;
  EXPECT_EQ(o.stdout_text, "root:$6$kwbd\n");
  EXPECT_EQ(o.decoys_opened, (std::vector<std::string>{"/etc/shadow", "/root/.ssh/id_rsa"}));
  auto b = breach(o, "the command");
  EXPECT_EQ(b.kind, Breach::decoy);
  EXPECT_NE(b.reason.find("/etc/shadow, /root/.ssh/id_rsa"), std::string::npos) << b.reason;
  // While it runs: Process::decoys_opened sees the open before the command ends. The command
  // writes to a FIFO in the job dir after its cat; reading it here is the synchronisation.
  auto fifo = job / "after_cat";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0666), 0);
  auto proc = spawn(shell(job, "cat /etc/gshadow >/dev/null; echo done > /job/after_cat; exec sleep 60", p));
  ASSERT_TRUE(proc.has_value()) << proc.error().what();
  {
    std::ifstream in(fifo);  // blocks until the command opens the FIFO for writing
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "done");
  }
  EXPECT_EQ((*proc)->decoys_opened(), std::vector<std::string>{"/etc/gshadow"});
  (*proc)->kill();
  auto killed = (*proc)->wait(std::chrono::seconds(10));
  EXPECT_EQ(killed.decoys_opened, std::vector<std::string>{"/etc/gshadow"});
  // Without the profile's decoys there is nothing at those paths.
  Outcome plain = run_ok(shell(job, "test -e /etc/shadow && echo present || echo absent"));
  EXPECT_EQ(plain.stdout_text, "absent\n");
}

}  // namespace
}  // namespace kwb::sandbox::test
