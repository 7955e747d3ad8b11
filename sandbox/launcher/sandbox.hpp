#pragma once
// kwb::sandbox — runs untrusted commands (compilers, kwb-runner) inside bubblewrap with the flags
// of docs/security.md "What is isolated and how": new user/pid/net/ipc/uts namespaces, all
// capabilities dropped, no nested user namespaces, uid/gid 65534, empty environment for bwrap
// itself, read-only /usr (and the usual /lib, /lib64, /bin symlinks), private size-limited /tmp,
// the job directory bound at /job LAST (so it shadows nothing of the host; read-only for runs),
// rlimits, a cgroup per job for memory and process count (cgroup.hpp; rlimits when cgroups are
// unavailable), and a wall-clock limit that kills the whole sandbox. A seccomp filter
// (seccomp_filter.hpp) kills the process on ptrace, mount, namespace, bpf, keyring, perf,
// userfaultfd, kexec and module syscalls (SIGSYS) and refuses io_uring and non-AF_UNIX sockets with
// EPERM. The root and /dev are remounted read-only after setup, so only /tmp (size-limited) and
// /job are writable. docs/security.md has the threat model and the limits.
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

// Limits of one kind of job (like Compiler Explorer's compile and run profiles); the defaults
// are in profiles.cpp and docs/security.md.
struct Profile {
  std::string name;                       // "compile" | "run"
  std::chrono::milliseconds wall{60000};  // wall-clock limit; the whole tree is killed past it
  int cpu_seconds = 60;                   // RLIMIT_CPU (SIGXCPU, then SIGKILL a second later)
  int64_t file_bytes = 256ll << 20;       // RLIMIT_FSIZE
  int open_files = 256;                   // RLIMIT_NOFILE
  int64_t tmp_bytes = 256ll << 20;        // size of the private /tmp (tmpfs; counts as memory too)
  int64_t output_bytes = 1 << 20;         // stdout and stderr are each kept up to this, then truncated
  // More output than output_bytes is a violation: the pipe is closed at the cap, so the next
  // write raises SIGPIPE, and Outcome::output_limit_hit is set. Otherwise the excess is dropped.
  bool output_overflow_fails = false;
  int64_t memory_bytes = 2ll << 30;       // memory cgroup limit (the OOM killer fires past it); 0 = none
  int max_processes = 64;                 // pids cgroup limit: processes and threads together; 0 = none
  // RLIMIT_AS, applied only when the memory cgroup is unavailable (a cruder stand-in: it counts
  // address space, not memory). 0: memory_bytes + 1 GiB, or none for GPU runs (the CUDA driver
  // reserves far more address space than it uses).
  int64_t address_space_bytes = 0;
  bool job_writable = true;               // /job read-write (compile) or read-only (run)
  bool gpu = false;                       // pass the NVIDIA device nodes and /sys through
  // With gpu: the one /dev/nvidia<N> passed (nvidiactl and the uvm nodes always are); -1 = every
  // GPU's node (docs/architecture.md "Lanes": each lane's sandbox sees its own GPU only).
  int gpu_minor = -1;
  // For candidate code (seccomp_filter.hpp): the calls other commands get EPERM for (sockets but
  // AF_UNIX, io_uring, chroot) kill instead, and so does starting a process (threads are fine), so
  // that an attempt reaches the verdict instead of failing quietly.
  bool strict_seccomp = false;
  // Decoy host secrets (decoys.hpp): fake files bound read-only at these inside paths and watched
  // from outside; an open of one is reported (Outcome::decoys_opened). Candidate runs get
  // candidate_decoys(); other profiles none.
  std::vector<std::string> decoys;
};
// The paths an escape attempt reads first, none of which the sandbox otherwise has.
std::vector<std::string> candidate_decoys();
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

  // What the limits saw (cgroup.hpp). Without cgroups, memory and process counts are not known.
  bool memory_limit_hit = false;   // the memory cgroup's OOM killer killed a process
  bool process_limit_hit = false;  // fork/clone failed at the process limit
  bool output_limit_hit = false;   // more output than allowed where that is a violation
  int64_t memory_peak_bytes = 0;   // of the whole sandbox; 0 when unknown
  std::string limits;              // "cgroup v1 (...)" | "cgroup v2 (...)" | "no cgroups: <why>"
  bool cgroup_enforced = false;    // memory and process limits were enforced by a cgroup
  // Killed by the seccomp filter (signal SIGSYS): the forbidden call when the kernel log named
  // it ("ptrace"), else empty.
  std::string denied_syscall;
  // bwrap itself (outside the sandbox, where the candidate cannot reach it) died of a signal that
  // neither the wall-clock limit nor kill() sent: the machine's fault (an administrator, the
  // host's OOM killer), not the command's. `signal` holds that signal.
  bool killed_from_outside = false;
  // Decoys (Profile::decoys) the command opened, by inside path, sorted.
  std::vector<std::string> decoys_opened;
  Profile profile;                 // the limits it ran under

  bool ok() const { return !timed_out && signal == 0 && exit_code == 0; }
};

// Which limit or rule stopped a sandbox, judged from its Outcome, with a sentence a person can
// act on. `who` names the command in the sentence ("the candidate", "the compiler").
enum class Breach { none, forbidden_syscall, memory, output, cpu_time, wall_time, file_size, processes, outside_kill, decoy };
struct BreachReport {
  Breach kind = Breach::none;
  std::string reason;  // empty for none
  std::string note;    // extra hint (e.g. the process limit was reached) to append to any reason
};
BreachReport breach(const Outcome& outcome, const std::string& who);
// The sentence for decoys a command opened (Breach::decoy), also used while a session runs.
std::string decoy_text(const std::vector<std::string>& opened, const std::string& who);

// Where job cgroups are made: a folder of this name under the root of each cgroup hierarchy
// ("kwb" by default: /sys/fs/cgroup/kwb on v2, /sys/fs/cgroup/{memory,pids}/kwb on v1), or "off"
// for rlimits only. Takes effect for sandboxes started afterwards (detection runs once per name).
void set_cgroup_parent(std::string parent);
struct CgroupStatus {
  bool enforced = false;
  std::string version;  // "v1" | "v2" | ""
  std::string detail;   // where the job cgroups go, or why cgroups are not used
};
CgroupStatus cgroup_status();

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
  // Stops every process of the sandbox (SIGSTOP to bwrap and all its descendants, until each of
  // their threads is seen stopped and no new process appeared), so nothing of it runs while
  // another subject is timed (eval/paired_timing.hpp); thaw() lets them go on. freeze.cpp.
  util::Result<void> freeze();
  void thaw();
  // Host pids of the processes in the job cgroup now (bwrap, its pid 1, the command and anything
  // they started); empty without a job cgroup.
  std::vector<pid_t> members();
  // Host pid of the command (the sandbox's pid 2, the only child of bwrap's pid 1), or -1 when it
  // has not started yet or the sandbox has ended.
  pid_t command_pid();
  // The job cgroup's process limit has refused a fork or thread at least once so far (false
  // without a job cgroup), read while the sandbox runs.
  bool process_limit_reached();
  // Decoys (Profile::decoys) opened so far, by inside path, sorted; empty without decoys.
  std::vector<std::string> decoys_opened();

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
