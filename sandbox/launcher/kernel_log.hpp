#pragma once
// Naming the system call that made the seccomp filter kill a sandboxed process. SIGSYS alone
// does not say which call it was, but the kernel logs every SECCOMP_RET_KILL_PROCESS as an audit
// record ("audit: type=1326 ... sig=31 arch=c000003e syscall=101 ...") to /dev/kmsg when no
// audit daemon takes them. spawn() opens /dev/kmsg positioned at its end; after a SIGSYS the
// records logged meanwhile are read back. Best effort: without a readable /dev/kmsg (containers,
// dmesg_restrict, auditd running) the name stays unknown, and a sandbox killed at the same moment
// elsewhere on the machine can add its call to the list.
#include <string>

namespace kwb::sandbox::detail {

// A non-blocking fd on /dev/kmsg positioned after the newest record; -1 when not readable.
int open_kernel_log();
// The names of the calls in seccomp kill records read from `fd` ("ptrace", or "ptrace or
// mount"); "" when there are none.
std::string seccomp_kills_since(int fd);

}  // namespace kwb::sandbox::detail
