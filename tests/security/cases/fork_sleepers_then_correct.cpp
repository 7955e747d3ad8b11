// kwb-expect: op=vector_add status=sandbox_violation reason="seccomp filter" also="clone"
// Issue 15 #13: forks 64 sleepers (which would outlive the call and hold the process limit), then
// computes the right answer. A candidate has no business starting processes: the strict filter
// of candidate runs kills it at the first fork (clone without CLONE_THREAD).
#include <unistd.h>

#include <cstdint>

extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  static bool forked = false;
  if (!forked) {
    forked = true;
    for (int i = 0; i < 64; ++i)
      if (fork() == 0) {
        sleep(1000);
        _exit(0);
      }
  }
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
