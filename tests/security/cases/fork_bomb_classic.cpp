// kwb-expect: op=vector_add status=sandbox_violation reason="seccomp filter" also="clone" args="--run-timeout-ms 1500"
// Candidate runs may not start processes (issue 15 #13): killed at the first fork.
// The classic: every process forks forever. It runs into the process limit and spins until the
// call's deadline; the whole tree is killed.
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
  for (;;) fork();
}
