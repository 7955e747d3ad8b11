// kwb-expect: op=vector_add status=sandbox_violation reason="seccomp filter" also="socket"
// Issue 15 #13: the attempts of the H200 report, each of which the sandbox contains quietly:
// reads /proc/1/environ and /etc/shadow (not there), writes under /tmp (private), opens an
// AF_INET socket (the seccomp filter), then computes the right answer. Contained, it was
// `accepted`; the socket call must now reach the verdict. Without a readable /dev/kmsg the
// reason lists the forbidden calls instead of naming socket.
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <initializer_list>

extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  char buf[256];
  for (const char* path : {"/proc/1/environ", "/etc/shadow"}) {
    int fd = open(path, O_RDONLY);
    if (fd >= 0) {
      (void)!read(fd, buf, sizeof buf);
      close(fd);
    }
  }
  if (FILE* f = std::fopen("/tmp/kwb-pwn-note", "w")) std::fclose(f);
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s >= 0) close(s);
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
