#pragma once
// The seccomp filter given to bwrap (--seccomp FD). bwrap installs it just before it execs the
// command, so bwrap's own setup is unaffected. Everything is allowed except the syscalls below,
// which fail with EPERM:
//   ptrace, process_vm_readv/writev            (inspecting other processes)
//   mount, umount2, pivot_root, chroot, the new mount API (fsopen, fsmount, move_mount, ...)
//   unshare, setns                              (namespaces; --disable-userns covers clone)
//   bpf, perf_event_open, userfaultfd, io_uring_setup/enter/register
//   keyctl, add_key, request_key, kexec_load, kexec_file_load, init/finit/delete_module,
//   open_by_handle_at
//   socket with a domain other than AF_UNIX     (the network namespace is empty anyway)
// Syscalls of other ABIs (i386 int 0x80, x32) kill the process (libseccomp's bad-arch default).
#include <string>

#include "util/error.hpp"

namespace kwb::sandbox::detail {

// The compiled BPF program (built once per process, then cached).
util::Result<std::string> seccomp_program();
// A fresh memfd (O_CLOEXEC) holding seccomp_program(), positioned at 0, ready for bwrap.
util::Result<int> seccomp_program_fd();

}  // namespace kwb::sandbox::detail
