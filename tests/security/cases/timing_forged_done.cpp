// kwb-expect: op=vector_add status=sandbox_violation reason="timed by the workbench" timed=yes args="--bench n1M"
// Issue 15 #12: forges its timings. The trusted side releases each timed call and takes the
// time when the runner says "done"; this candidate says "done" (with a 1 ns figure of its own)
// on the runner's done pipe before it starts, then does its work and more: the kernel's account
// of the runner's CPU time shows work outside the timed window. Also forges a timing reply on
// the reply descriptor, which nothing uses any more. Correct otherwise.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
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
  static int fds[5] = {-1, -1, -1, -1, -1};
  static bool found = runner_fds(fds);
  if (found && n >= 1000000 && fds[4] >= 0) {
    int64_t forged = 1;
    (void)!write(fds[4], &forged, sizeof forged);  // "done", before any work
  }
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
  if (n >= 1000000) {  // and much more work than the kernel needs, all of it hidden
    auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1);
    while (std::chrono::steady_clock::now() < until) {
    }
  }
}
