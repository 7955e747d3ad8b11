#include "launcher/seccomp_filter.hpp"

#include <seccomp.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

namespace kwb::sandbox::detail {

namespace {

// Calls only an attack needs: the process is killed (SIGSYS) so the verdict can say so.
constexpr const char* k_killed[] = {
    "ptrace", "process_vm_readv", "process_vm_writev",
    "mount", "umount2", "pivot_root", "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree",
    "mount_setattr", "unshare", "setns",
    "bpf", "perf_event_open", "userfaultfd",
    "keyctl", "add_key", "request_key", "kexec_load", "kexec_file_load",
    "init_module", "finit_module", "delete_module", "open_by_handle_at",
};
// Calls that ordinary libraries probe and fall back from: they fail with EPERM.
constexpr const char* k_refused[] = {"io_uring_setup", "io_uring_enter", "io_uring_register", "chroot"};

std::string errno_text(const char* what, int rc) { return std::string(what) + ": " + std::strerror(-rc); }

// Starting a process (not a thread): the strict filter kills for it.
constexpr const char* k_new_process[] = {"fork", "vfork"};

util::Result<std::string> build_program(bool strict) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) return util::fail("sandbox seccomp", "seccomp_init failed");
  struct Release {
    scmp_filter_ctx ctx;
    ~Release() { seccomp_release(ctx); }
  } release{ctx};
  const uint32_t deny = SCMP_ACT_ERRNO(EPERM);
  auto add_all = [&](const auto& names, uint32_t action) -> util::Result<void> {
    for (const char* name : names) {
      int nr = seccomp_syscall_resolve_name(name);
      if (nr == __NR_SCMP_ERROR) continue;  // not a syscall of this architecture
      if (int rc = seccomp_rule_add(ctx, action, nr, 0); rc < 0) return util::fail("sandbox seccomp", errno_text(name, rc));
    }
    return {};
  };
  if (auto r = add_all(k_killed, SCMP_ACT_KILL_PROCESS); !r) return std::unexpected(r.error());
  const uint32_t refuse = strict ? SCMP_ACT_KILL_PROCESS : deny;
  if (auto r = add_all(k_refused, refuse); !r) return std::unexpected(r.error());
  if (int rc = seccomp_rule_add(ctx, refuse, SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_NE, AF_UNIX)); rc < 0) {
    return util::fail("sandbox seccomp", errno_text("socket", rc));
  }
  if (strict) {
    if (auto r = add_all(k_new_process, SCMP_ACT_KILL_PROCESS); !r) return std::unexpected(r.error());
    if (int rc = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(clone), 1,
                                  SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
        rc < 0) {
      return util::fail("sandbox seccomp", errno_text("clone", rc));
    }
    if (int nr = seccomp_syscall_resolve_name("clone3"); nr != __NR_SCMP_ERROR) {
      if (int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0); rc < 0)
        return util::fail("sandbox seccomp", errno_text("clone3", rc));
    }
  }
  int fd = memfd_create("kwb-seccomp-export", MFD_CLOEXEC);
  if (fd < 0) return util::fail("sandbox seccomp", std::string("memfd_create: ") + std::strerror(errno));
  std::string program;
  int rc = seccomp_export_bpf(ctx, fd);
  if (rc == 0 && lseek(fd, 0, SEEK_SET) == 0) {
    char buf[4096];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) program.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  if (rc < 0) return util::fail("sandbox seccomp", errno_text("seccomp_export_bpf", rc));
  if (program.empty()) return util::fail("sandbox seccomp", "exported BPF program is empty");
  return program;
}

}  // namespace

util::Result<std::string> seccomp_program(bool strict) {
  static std::once_flag once[2];
  static util::Result<std::string> program[2] = {util::fail("", ""), util::fail("", "")};
  std::call_once(once[strict], [strict] { program[strict] = build_program(strict); });
  return program[strict];
}

util::Result<int> seccomp_program_fd(bool strict) {
  auto program = seccomp_program(strict);
  if (!program) return std::unexpected(program.error());
  int fd = memfd_create("kwb-seccomp", MFD_CLOEXEC);
  if (fd < 0) return util::fail("sandbox seccomp", std::string("memfd_create: ") + std::strerror(errno));
  size_t done = 0;
  while (done < program->size()) {
    ssize_t n = write(fd, program->data() + done, program->size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      close(fd);
      return util::fail("sandbox seccomp", std::string("writing the filter: ") + std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  if (lseek(fd, 0, SEEK_SET) != 0) {
    int err = errno;
    close(fd);
    return util::fail("sandbox seccomp", std::string("lseek: ") + std::strerror(err));
  }
  return fd;
}

}  // namespace kwb::sandbox::detail
