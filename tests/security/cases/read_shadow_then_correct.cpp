// kwb-expect: op=vector_add status=sandbox_violation reason="opened /etc/shadow"
// Issue 15 #13: reads /etc/shadow (in the sandbox a decoy with fake contents: docs/security.md
// "Decoys"), says nothing, then computes the right answer. A failed or harmless read used to be
// invisible and the candidate `accepted`; the open of a decoy is seen from outside at the runner's
// next reply.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>

extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  char buf[128];
  int fd = open("/etc/shadow", O_RDONLY);
  if (fd >= 0) {
    (void)!read(fd, buf, sizeof buf);
    close(fd);
  }
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
