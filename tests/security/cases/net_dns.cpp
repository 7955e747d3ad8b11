// kwb-expect: op=vector_add status=sandbox_violation reason="seccomp filter" also="socket"
// Candidate runs get the strict seccomp filter (issue 15 #13): the first non-AF_UNIX socket() kills
// the runner and the verdict names the call; the network namespace would have held anyway.
// Resolves host names through the C library (resolv.conf, nsswitch, netlink for AI_ADDRCONFIG).
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <netdb.h>
#include <sys/socket.h>

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
  const char* names[] = {"example.com", "github.com", "localhost"};
  for (const char* name : names) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    int rc = getaddrinfo(name, "80", &hints, &res);
    if (rc == 0 && name[0] != 'l') report("LEAKED", "dns resolved %s", name);
    if (res) freeaddrinfo(res);
  }
  addrinfo* res = nullptr;
  int rc = getaddrinfo("example.com", "80", nullptr, &res);
  report("HELD", "dns lookup of example.com failed: %s", gai_strerror(rc));
}
