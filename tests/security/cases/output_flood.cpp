// kwb-expect: op=vector_add status=output_limit reason="more than 64 KiB to stdout or stderr"
// Floods stdout. The run profile keeps 64 KiB, then stops the candidate (SIGPIPE and a kill).
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
  static char line[4096];
  std::memset(line, 'y', sizeof line);
  for (;;) std::fwrite(line, 1, sizeof line, stdout);
}
