// kwb-expect: op=vector_add status=memory_limit reason="memory limit of 4096 MiB" fallback_status=crashed fallback_reason="HELD: malloc" args="--run-timeout-ms 30000"
// Allocates and touches memory without end. The memory cgroup's OOM killer stops it at the run
// profile's limit (4 GiB); without cgroups RLIMIT_AS makes the allocation fail instead. A long
// call deadline: faulting in 4 GiB takes seconds on a busy 2-core machine.
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
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
  size_t total = 0;
  for (;;) {
    const size_t chunk = 256u << 20;
    // MAP_POPULATE faults every page in at once (faster than touching them from here).
    void* p = mmap(nullptr, chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) report("HELD: malloc", "mmap refused after %zu MiB", total >> 20);
    static_cast<volatile char*>(p)[chunk - 1] = 1;
    total += chunk;
    if (total > (64ull << 30)) report("LEAKED", "allocated %zu MiB", total >> 20);
  }
}
