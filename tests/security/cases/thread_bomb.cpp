// kwb-expect: op=vector_add status=sandbox_violation reason="tried to start more processes or threads" also="HELD: threads" needs=cgroup
// The process limit refusing a thread is an attempt on the sandbox (issue 15 #13).
// Starts threads until that fails; threads count against the same pids limit as processes.
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <thread>
#include <vector>
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
  static std::vector<std::thread> threads;
  try {
    while (threads.size() < 5000) threads.emplace_back([] { for (;;) pause(); });
  } catch (const std::system_error& e) {
    report("HELD: threads", "thread creation refused after %zu threads (%s)", threads.size(), e.what());
  }
  report("LEAKED", "started %zu threads", threads.size());
}
