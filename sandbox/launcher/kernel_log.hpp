#pragma once
// Naming the system call that made the seccomp filter kill a sandboxed process. SIGSYS alone
// does not say which call it was, but the kernel logs every SECCOMP_RET_KILL_PROCESS as an audit
// record ("audit: type=1326 ... sig=31 arch=c000003e syscall=101 ...") to /dev/kmsg when no
// audit daemon takes them. spawn() opens /dev/kmsg positioned at its end; after a SIGSYS the
// records logged meanwhile are read back. Best effort: without a readable /dev/kmsg (containers,
// dmesg_restrict, auditd running) the name stays unknown. Records of processes older than the
// sandbox's bwrap are skipped, but a sandbox started later and killed at the same moment can
// still add its call to the list, and the kernel's printk rate limit (10 records per 5 s) can
// drop this sandbox's own record while another's is read. The records arrive a moment after
// the kill (the audit thread prints them): up to 100 ms are waited for the first one.
#include <string>

namespace kwb::sandbox::detail {

// A non-blocking fd on /dev/kmsg positioned after the newest record; -1 when not readable.
int open_kernel_log();
// The names of the calls in seccomp kill records read from `fd` whose pid is at least
// `first_pid` ("ptrace", or "ptrace or mount"); "" when there are none.
std::string seccomp_kills_since(int fd, long first_pid);

}  // namespace kwb::sandbox::detail
