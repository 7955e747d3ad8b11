// kwb-expect: op=vector_add status=sandbox_violation reason="seccomp filter" also="ptrace"
// Tries to trace its parent (bwrap's init inside the sandbox) to take it over.
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/ptrace.h>
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
  long r = ptrace(PTRACE_ATTACH, getppid(), nullptr, nullptr);
  report("LEAKED", "ptrace returned %ld (%s)", r, std::strerror(errno));
}
