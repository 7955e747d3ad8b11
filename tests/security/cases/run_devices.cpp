// kwb-expect: op=vector_add status=crashed reason="HELD: devices"
// Reaches for raw devices: physical memory, the kernel log, disks, and makes device nodes.
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

// HELD: the attack failed as it should; LEAKED: it worked. Either way the runner aborts with the
// line on stderr, which the verdict's reason quotes.
[[noreturn]] static void report(const char* verdict, const char* fmt, ...) {
  std::fprintf(stderr, "%s: ", verdict);
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(stderr, fmt, ap);
  va_end(ap);
  std::fputc('\n', stderr);
  std::fflush(stderr);
  std::abort();
}

extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  const char* nodes[] = {"/dev/mem", "/dev/kmem", "/dev/port", "/dev/kmsg", "/dev/sda", "/dev/vda", "/dev/nvme0n1",
                         "/dev/nvidia0", "/dev/nvidiactl"};
  for (const char* p : nodes) {
    if (open(p, O_RDWR) >= 0) report("LEAKED", "opened %s", p);
  }
  if (mknod("/tmp/kwb-pwn-mem", S_IFCHR | 0600, makedev(1, 1)) == 0) report("LEAKED", "made a /dev/mem node");
  report("HELD: devices", "no device opened and mknod refused (%s)", std::strerror(errno));
}
