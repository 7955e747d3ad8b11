// kwb-expect: op=vector_add status=sandbox_violation reason="seccomp filter" also="socket"
// Candidate runs get the strict seccomp filter (issue 15 #13): the first non-AF_UNIX socket() kills
// the runner and the verdict names the call; the network namespace would have held anyway.
// Connects to a TCP port the test listens on on the host's loopback (like the daemon's HTTP port,
// 127.0.0.1:8470), over IPv4 and IPv6, and sends a request. The test asserts that its listener never
// accepted a connection. @PORT@ is replaced by the test.
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
  const int port = @PORT@;
  int s4 = socket(AF_INET, SOCK_STREAM, 0);
  if (s4 >= 0) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(s4, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
      const char req[] = "POST /v1/candidates/1/promote HTTP/1.0\r\n\r\n";
      (void)!write(s4, req, sizeof req - 1);
      report("LEAKED", "loopback connected to 127.0.0.1:%d", port);
    }
  }
  int s6 = socket(AF_INET6, SOCK_STREAM, 0);
  if (s6 >= 0) {
    sockaddr_in6 addr{};
    addr.sin6_family = AF_INET6;
    addr.sin6_port = htons(port);
    addr.sin6_addr = in6addr_loopback;
    if (connect(s6, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) report("LEAKED", "loopback connected to [::1]:%d", port);
  }
  report("HELD", "loopback sockets -> %d, %d (%s)", s4, s6, std::strerror(errno));
}
