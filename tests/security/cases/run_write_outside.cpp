// kwb-expect: op=vector_add status=crashed reason="HELD: writes"
// Writes outside the job directory: system folders, /dev, the workspace, the kernel's knobs in
// /proc/sys (the sandbox's uid is the host's uid 0, which sysctl files trust: core_pattern was
// writable until /proc/sys was bound read-only). Only the private /tmp may take the write; the
// test asserts no file named kwb-pwn appears on the host.
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <string>

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
  const char* dirs[] = {"/usr", "/usr/lib", "/", "/etc", "/dev", "/dev/shm", "/var/tmp", "/job", "/proc",
                        "@WORKSPACE@", "@WORKSPACE@/objects", "/kwb"};
  for (const char* d : dirs) {
    std::string path = std::string(d) + "/kwb-pwn-write";
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) report("LEAKED", "created %s", path.c_str());
  }
  // Kernel knobs: write back the value just read (a write that changes nothing, so a regression
  // cannot hurt the machine running the test), and a harmless sysrq 'h' (print help).
  const char* knobs[] = {"/proc/sys/kernel/core_pattern", "/proc/sys/kernel/modprobe", "/proc/sys/vm/swappiness",
                         "/proc/sys/kernel/hostname", "/proc/sysrq-trigger", "/sys/kernel/mm/transparent_hugepage/enabled"};
  for (const char* k : knobs) {
    char value[256] = "h";
    int in = open(k, O_RDONLY);
    if (in >= 0) {
      ssize_t got = read(in, value, sizeof value - 1);
      value[got > 0 ? got : 0] = 0;
      close(in);
    }
    int fd = open(k, O_WRONLY);
    if (fd >= 0 && write(fd, value, std::strlen(value)) >= 0) report("LEAKED", "wrote %s", k);
  }
  int tmp = open("/tmp/kwb-pwn-private", O_WRONLY | O_CREAT, 0644);  // private: allowed, gone afterwards
  report("HELD: writes", "only the private /tmp took a file (fd %d)", tmp);
}
