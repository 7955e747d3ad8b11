// kwb-expect: op=vector_add status=sandbox_violation reason="seccomp filter" also="io_uring"
// For candidate code the strict filter kills on io_uring (issue 15 #13); compilers get EPERM.
// io_uring is refused with EPERM rather than killed: libraries probe it and fall back.
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <linux/io_uring.h>
#include <sys/syscall.h>
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
  io_uring_params params;
  std::memset(&params, 0, sizeof params);
  long r = syscall(SYS_io_uring_setup, 8, &params);
  if (r >= 0) report("LEAKED", "io_uring_setup gave fd %ld", r);
  report("HELD: io_uring", "io_uring_setup refused (%s)", std::strerror(errno));
}
