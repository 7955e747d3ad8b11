#pragma once
// kwb::sandbox — runs untrusted commands (compilers, kwb-runner) inside bubblewrap with the
// flags of DESIGN §11: new user/pid/net/ipc/uts namespaces, all capabilities dropped, no nested
// user namespaces, uid/gid 65534, empty environment for bwrap itself, read-only /usr (and the
// usual /lib, /lib64, /bin symlinks), private size-limited /tmp, the job directory bound
// read-write at /job LAST (so it shadows nothing of the host), rlimits, and a wall-clock limit that
// kills the whole sandbox. A seccomp filter (seccomp_filter.hpp) denies ptrace, mount, namespace,
// bpf, io_uring, keyring, perf, userfaultfd and module syscalls and non-AF_UNIX sockets with EPERM.
// The root and /dev are remounted read-only after setup, so only /tmp (size-limited) and /job are
// writable. Process and memory limits through a cgroup per job come from the sandbox issue (#3).
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "util/error.hpp"

namespace kwb::sandbox {

// Limits of one kind of job (like Compiler Explorer's compile and run profiles).
struct Profile {
  std::string name;                       // "compile" | "run"
  std::chrono::milliseconds wall{60000};  // wall-clock limit; the whole tree is killed past it
  int cpu_seconds = 60;                   // RLIMIT_CPU
  int64_t file_bytes = 256ll << 20;       // RLIMIT_FSIZE
  int open_files = 256;                   // RLIMIT_NOFILE
  int64_t tmp_bytes = 256ll << 20;        // size of the private /tmp (tmpfs)
  int64_t output_bytes = 1 << 20;         // stdout and stderr are each kept up to this, then truncated
  int64_t address_space_bytes = 0;        // RLIMIT_AS, 0 = unlimited
  bool gpu = false;                       // pass the NVIDIA device nodes and /sys through
};
Profile compile_profile();
Profile run_profile();

struct Bind {
  std::filesystem::path host;
  std::string inside;
  bool writable = false;
};

struct Request {
  std::filesystem::path bwrap = "/usr/bin/bwrap";
  std::filesystem::path job_dir;     // host folder, bound writable at /job, last; cwd is /job
  std::vector<Bind> binds;           // extra binds (e.g. kwb-runner read-only at /kwb/kwb-runner)
  std::vector<std::string> argv;     // command as seen inside the sandbox
  std::vector<std::pair<std::string, std::string>> env;  // the sandbox's whole environment
  std::vector<int> inherit_fds;      // fds passed through with their numbers (not CLOEXEC there)
  Profile profile;
};

struct Outcome {
  int exit_code = -1;     // when exited normally
  int signal = 0;         // when killed by a signal (0 otherwise)
  bool timed_out = false; // killed by the wall-clock limit
  bool stdout_truncated = false, stderr_truncated = false;
  std::string stdout_text, stderr_text;  // capped at profile.output_bytes each
  double wall_ms = 0;

  bool ok() const { return !timed_out && signal == 0 && exit_code == 0; }
};

// A started sandbox. stdout/stderr are drained in the background (capped), so the child never
// blocks on a full pipe. Destroying a Process that is still running kills it.
class Process {
 public:
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const;
  // True while the sandbox is still running.
  bool running();
  // Waits until the sandbox exits, killing it when `timeout` passes first (timed_out = true).
  Outcome wait(std::chrono::milliseconds timeout);
  // Kills the whole sandbox now: SIGKILL to its pid 1, which takes every process of the pid
  // namespace with it (then bwrap exits); SIGKILL to bwrap itself when pid 1 is not known yet or
  // bwrap does not exit within 5 s. The next wait() reports signal 9.
  void kill();

  struct Impl;
  explicit Process(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> m_impl;
};

// Starts `req` and returns once bwrap has been exec'd. Errors only for failures of the trusted side
// (no bwrap, missing job dir or bind source, bad inherited fd, pipe/fork failure); anything the
// command does is reported through Outcome. bwrap's own setup failures (after exec) read as exit
// code 1 with "bwrap: ..." on stderr.
// The sandbox is tied to the calling thread (PR_SET_PDEATHSIG): if that thread exits before the
// sandbox does, the sandbox is killed — so a crashed daemon leaves no orphans. Spawn from the
// thread that outlives the job (the one that waits, or a long-lived pool thread).
util::Result<std::unique_ptr<Process>> spawn(const Request& req);
// Starts `req` and waits up to req.profile.wall.
util::Result<Outcome> run(const Request& req);

// A small environment suitable for compilers and runners: PATH=/usr/bin:/bin, HOME=/job,
// TMPDIR=/tmp, LANG=C.UTF-8. Request.env is the whole environment (bwrap adds only PWD=/job after
// --chdir); callers usually start here.
std::vector<std::pair<std::string, std::string>> default_env();

// --- Exposed for tests and the kwb-sandbox CLI ---

// File descriptors that spawn() hands to bwrap itself (not to the command), and where the GPU
// device nodes are looked up (tests point this at a fake folder).
struct BwrapSetup {
  int seccomp_fd = -1;      // --seccomp FD (compiled BPF program), -1 = none
  int json_status_fd = -1;  // --json-status-fd FD (child-pid and exit-code reports), -1 = none
  std::filesystem::path dev_dir = "/dev";
};
// The full bwrap command line for `req` (argv[0] is req.bwrap), in mount order: /usr, symlinks,
// /proc, /dev (+ GPU nodes and /sys), /tmp, req.binds, the job dir at /job, then read-only
// remounts of /dev and /, --chdir /job, "--", req.argv.
std::vector<std::string> bwrap_argv(const Request& req, const BwrapSetup& setup = {});
// NVIDIA device nodes present in `dev_dir`: nvidiactl, nvidia-uvm, nvidia-uvm-tools, nvidia0..N.
std::vector<std::filesystem::path> gpu_device_nodes(const std::filesystem::path& dev_dir = "/dev");

}  // namespace kwb::sandbox
