#pragma once
// The seccomp filter given to bwrap (--seccomp FD). bwrap installs it just before it execs the
// command, so bwrap's own setup is unaffected. Everything is allowed (compilers, NVRTC and the
// CUDA driver need ioctl, PROT_EXEC mappings, threads) except:
//   killed (SECCOMP_RET_KILL_PROCESS: SIGSYS, verdict sandbox_violation; kernel_log.hpp names it):
//     ptrace, process_vm_readv/writev; mount, umount2, pivot_root and the new mount API (fsopen,
//     fsconfig, fsmount, fspick, move_mount, open_tree, mount_setattr); unshare, setns; bpf,
//     perf_event_open, userfaultfd; keyctl, add_key, request_key; kexec_load, kexec_file_load;
//     init/finit/delete_module; open_by_handle_at — only an attack calls these
//   refused with EPERM (libraries probe them and fall back):
//     io_uring_setup/enter/register, chroot, socket() with a domain other than AF_UNIX
// Syscalls of other ABIs (i386 int 0x80, x32) kill the process (libseccomp's bad-arch default).
// The strict filter (Profile.strict_seccomp: candidate code, which has no business probing) kills
// on the refused calls too, so an attempt is seen instead of failing quietly, and kills on every
// new process: fork, vfork, clone without CLONE_THREAD (threads stay allowed); clone3, whose
// flags a filter cannot read, fails with ENOSYS so that glibc falls back to clone.
// docs/security.md explains the choice.
#include <string>

#include "util/error.hpp"

namespace kwb::sandbox::detail {

// The compiled BPF program (built once per process and kind, then cached).
util::Result<std::string> seccomp_program(bool strict = false);
// A fresh memfd (O_CLOEXEC) holding seccomp_program(strict), positioned at 0, ready for bwrap.
util::Result<int> seccomp_program_fd(bool strict = false);

}  // namespace kwb::sandbox::detail
