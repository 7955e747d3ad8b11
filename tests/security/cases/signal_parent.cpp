// kwb-expect: op=vector_add status=crashed reason="HELD: parent"
// Signals its parent (inside a pid namespace that is bwrap's init, pid 1) and its process group
// to bring the evaluation down; then checks the parent is still there.
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
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
  pid_t parent = getppid();
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGKILL}) {
    kill(parent, sig);
    kill(1, sig);
  }
  usleep(100000);
  if (getppid() != parent) report("LEAKED", "parent %d is gone", parent);
  report("HELD: parent", "parent pid %d still alive after SIGTERM..SIGKILL", parent);
}
