// kwb-expect: op=vector_add status=sandbox_violation reason="opened /etc/shadow"
// Reads host files at run time: credentials, keys, logs, the source tree. Only /usr, /job, /tmp,
// /proc and /dev exist in the sandbox, plus decoys with fake contents at the secrets' paths
// (docs/security.md "Decoys"): reading one is not a leak, but it is an attempt the verdict names.
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
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
  const char* paths[] = {"/etc/shadow", "/etc/passwd", "/etc/hostname", "/root/.ssh/id_rsa", "/root/.bash_history",
                         "/home", "/var/log/syslog", "/work/main/CMakeLists.txt", "/run/secrets", "/boot",
                         "/proc/1/root/etc/passwd", "/proc/self/root/etc/passwd"};
  int decoys = 0;
  for (const char* p : paths) {
    int fd = open(p, O_RDONLY);
    if (fd >= 0) {
      char buf[200] = {};
      ssize_t got = read(fd, buf, sizeof buf - 1);
      close(fd);
      if (std::strstr(buf, "KWB-DECOY") != nullptr) {
        ++decoys;
        continue;
      }
      report("LEAKED", "read %s (%zd bytes): %s", p, got, buf);
    }
  }
  report("HELD: host files", "none of %zu host paths could be opened (%d decoys read)", sizeof paths / sizeof *paths,
         decoys);
}
