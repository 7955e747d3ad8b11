// Which limit or rule stopped a sandbox (sandbox.hpp: breach), in words a person can act on.
#include <csignal>

#include "launcher/sandbox.hpp"

namespace kwb::sandbox {

namespace {

std::string bytes_text(int64_t bytes) {
  if (bytes >= (1ll << 20) && bytes % (1ll << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= (1ll << 10) && bytes % (1ll << 10) == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

constexpr const char* k_forbidden_calls =
    "ptrace, process_vm_readv/writev, mount and the new mount API, pivot_root, unshare, setns, bpf, "
    "perf_event_open, userfaultfd, keyctl/add_key/request_key, kexec, kernel modules, open_by_handle_at; for candidate "
    "code also socket (other than AF_UNIX), io_uring, chroot, fork/vfork/clone of a new process";

}  // namespace

std::string decoy_text(const std::vector<std::string>& opened, const std::string& who) {
  std::string paths;
  for (const auto& p : opened) paths += (paths.empty() ? "" : ", ") + p;
  return who + " opened " + paths + ": host secrets' paths, where the sandbox keeps decoys with fake contents "
         "(nothing real was readable); a kernel has no reason to read them, so this is an escape attempt";
}

BreachReport breach(const Outcome& o, const std::string& who) {
  BreachReport r;
  const Profile& p = o.profile;
  std::string profile = p.name.empty() ? "sandbox" : p.name + " profile";
  if (o.process_limit_hit) {
    r.note = "the " + profile + "'s limit of " + std::to_string(p.max_processes) +
             " processes and threads was reached, so fork() or thread creation failed (a fork or thread bomb?)";
  }
  if (o.output_limit_hit) {
    r.kind = Breach::output;
    r.reason = who + " wrote more than " + bytes_text(p.output_bytes) + " to stdout or stderr, the " + profile +
               "'s limit, and was stopped there (SIGPIPE on its next write): a flood of output; remove the prints";
  } else if (o.memory_limit_hit) {
    r.kind = Breach::memory;
    r.reason = who + " exceeded the " + profile + "'s memory limit of " + bytes_text(p.memory_bytes) +
               " and was killed by the out-of-memory killer: allocate less (files in /tmp count too)";
  } else if (o.killed_from_outside) {
    r.kind = Breach::outside_kill;
    r.reason = "the sandbox was killed from outside (bwrap got signal " + std::to_string(o.signal) +
               ", which neither the sandbox's limits nor the workbench sent): a fault of the machine, not of " + who +
               "; run it again";
  } else if (o.signal == SIGSYS) {
    r.kind = Breach::forbidden_syscall;
    r.reason = who + " was killed by the sandbox's seccomp filter (SIGSYS) for calling " +
               (o.denied_syscall.empty() ? "a forbidden system call (one of " + std::string(k_forbidden_calls) + ")"
                                         : o.denied_syscall + ", a system call the sandbox forbids");
  } else if (!o.decoys_opened.empty()) {
    r.kind = Breach::decoy;
    r.reason = decoy_text(o.decoys_opened, who);
  } else if (o.signal == SIGXCPU) {
    r.kind = Breach::cpu_time;
    r.reason = who + " used up the " + profile + "'s CPU time limit of " + std::to_string(p.cpu_seconds) + " s";
  } else if (o.signal == SIGXFSZ) {
    r.kind = Breach::file_size;
    r.reason = who + " wrote a file larger than the " + profile + "'s limit of " + bytes_text(p.file_bytes) +
               " (SIGXFSZ)";
  } else if (o.timed_out) {
    r.kind = Breach::wall_time;
    r.reason = who + " did not finish within the " + profile + "'s wall-clock limit of " +
               std::to_string(p.wall.count()) + " ms";
  } else if (o.process_limit_hit && !o.ok()) {
    r.kind = Breach::processes;
    r.reason = r.note;
    r.note.clear();
  }
  if (!o.decoys_opened.empty() && r.kind != Breach::decoy)
    r.note += (r.note.empty() ? "" : "; ") + decoy_text(o.decoys_opened, who);
  return r;
}

}  // namespace kwb::sandbox
