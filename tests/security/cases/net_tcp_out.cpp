// kwb-expect: op=vector_add status=sandbox_violation reason="seccomp filter" also="socket"
// Candidate runs get the strict seccomp filter (issue 15 #13): the first non-AF_UNIX socket() kills
// the runner and the verdict names the call; the network namespace would have held anyway.
// Opens TCP connections to public addresses (a web server, a DNS server over TCP). The sandbox has
// its own empty network namespace and the seccomp filter refuses non-AF_UNIX sockets with EPERM.
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
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
  const char* targets[] = {"93.184.216.34", "1.1.1.1", "8.8.8.8"};
  for (const char* ip : targets) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) continue;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(ip[0] == '9' ? 80 : 53);
    inet_pton(AF_INET, ip, &addr.sin_addr);
    if (connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) report("LEAKED", "tcp connected to %s", ip);
    close(s);
  }
  errno = 0;
  int s = socket(AF_INET, SOCK_STREAM, 0);
  report("HELD", "tcp socket() -> %d (%s)", s, std::strerror(errno));
}
