// kwb-expect: op=vector_add status=output_limit reason="more than 64 KiB to stdout or stderr"
// Ignores SIGPIPE and floods stderr with raw writes that keep failing: the sandbox is killed
// anyway once the cap is passed.
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <signal.h>
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
  signal(SIGPIPE, SIG_IGN);
  static char line[4096];
  std::memset(line, 'z', sizeof line);
  for (;;) (void)!write(2, line, sizeof line);
}
