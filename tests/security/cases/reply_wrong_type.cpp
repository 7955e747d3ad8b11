// kwb-expect: op=vector_add status=sandbox_violation reason="control channel was corrupted" also="is not a boolean"
// Issue 15 #12: writes {"ok":"yes"} to the runner's reply descriptor (found on the runner's
// command line), which made `kwb eval` abort with an uncaught nlohmann::type_error. Then computes
// the right answer, so only the forged reply can give it away.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

// The runner's --fds CMD,REPLY,SHM[,GO,DONE], from /proc/self/cmdline; false when not found.
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
    const char forged[] = "{\"ok\":\"yes\"}\n";
    (void)!write(fds[1], forged, sizeof forged - 1);
  }
}
