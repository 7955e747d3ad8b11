// kwb-expect: op=vector_add status=memory_limit reason="memory limit of 4096 MiB" fallback_status=crashed fallback_reason="HELD: malloc"
// Allocates and touches memory without end. The memory cgroup's OOM killer stops it at the run
// profile's limit (4 GiB); without cgroups RLIMIT_AS makes malloc fail instead.
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
    const size_t chunk = 64u << 20;
    char* p = static_cast<char*>(std::malloc(chunk));
    if (!p) report("HELD: malloc", "malloc refused after %zu MiB", total >> 20);
    std::memset(p, 0x5a, chunk);
    total += chunk;
    if (total > (64ull << 30)) report("LEAKED", "allocated %zu MiB", total >> 20);
  }
}
