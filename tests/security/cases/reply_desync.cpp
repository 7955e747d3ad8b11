// kwb-expect: op=vector_add status=sandbox_violation reason="reply descriptor"
// Issue 15 #12: a well-formed reply written to the runner's reply descriptor during a call, with
// a guess at the number of the command it answers (load 1, map 2, the first call 3). Either the
// guess is wrong (a reply that answers no command) or right, and then the runner's own answer is
// one reply too many. Computes the right answer otherwise.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

static bool runner_fds(int fds[5]) {
  char buf[4096] = {};
  int f = open("/proc/self/cmdline", O_RDONLY);
  ssize_t n = f >= 0 ? read(f, buf, sizeof buf - 1) : -1;
  if (f >= 0) close(f);
  for (ssize_t i = 0; i < n; i += ssize_t(std::strlen(buf + i)) + 1) {
    if (std::strcmp(buf + i, "--fds") == 0 && i + 6 < n) {
      for (int k = 0; k < 5; ++k) fds[k] = -1;
      return std::sscanf(buf + i + 6, "%d,%d,%d,%d,%d", &fds[0], &fds[1], &fds[2], &fds[3], &fds[4]) >= 3;
    }
  }
  return false;
}

extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
  static bool done = false;
  int fds[5];
  if (!done && runner_fds(fds)) {
    done = true;
    const char forged[] = "{\"ok\":true,\"seq\":3,\"ns\":[1]}\n";
    (void)!write(fds[1], forged, sizeof forged - 1);
  }
}
