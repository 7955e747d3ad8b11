// kwb-expect: op=vector_add status=crashed reason="HELD: kill"
// kill(-1, SIGKILL), then SIGKILL to every pid up to 65536: inside its own pid namespace it can
// only reach the sandbox's processes (and not pid 1); the evaluator must survive.
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
  int r = kill(-1, SIGKILL);
  int hits = 0;
  for (pid_t pid = 2; pid < 65536; ++pid)
    if (pid != getpid() && kill(pid, SIGKILL) == 0) ++hits;
  report("HELD: kill", "kill(-1) -> %d; %d other pids could be signalled; still here", r, hits);
}
