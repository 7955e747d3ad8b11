// kwb-expect: op=vector_add status=sandbox_violation reason="seccomp filter" also="clone"
// Candidate runs may not start processes (issue 15 #13): the strict seccomp filter kills the
// first fork (clone without CLONE_THREAD), which the verdict names. Before that the pids cgroup
// stopped it at the run profile's limit and it was only `crashed`.
// Forks until fork() fails; the children sleep. The pids cgroup stops it at the run profile's
// limit (64 processes and threads), and everything is killed with the sandbox.
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
  int made = 0;
  for (; made < 5000; ++made) {
    pid_t pid = fork();
    if (pid < 0) break;
    if (pid == 0) {
      for (;;) pause();
    }
  }
  if (made >= 5000) report("LEAKED", "forked %d processes", made);
  report("HELD: fork", "fork refused after %d processes (%s)", made, std::strerror(errno));
}
