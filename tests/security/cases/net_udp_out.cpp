// kwb-expect: op=vector_add status=sandbox_violation reason="seccomp filter" also="socket"
// Candidate runs get the strict seccomp filter (issue 15 #13): the first non-AF_UNIX socket() kills
// the runner and the verdict names the call; the network namespace would have held anyway.
// Sends a DNS query over UDP to a public resolver and waits for an answer.
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
  errno = 0;
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  if (s >= 0) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(53);
    inet_pton(AF_INET, "8.8.8.8", &addr.sin_addr);
    // A query for example.com, type A.
    const unsigned char query[] = {0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e',
                                   3, 'c', 'o', 'm', 0, 0, 1, 0, 1};
    timeval tv{1, 0};
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char answer[512];
    if (sendto(s, query, sizeof query, 0, reinterpret_cast<sockaddr*>(&addr), sizeof addr) > 0 &&
        recv(s, answer, sizeof answer, 0) > 0)
      report("LEAKED", "udp answer from 8.8.8.8");
    report("HELD", "udp socket made but nothing came back (%s)", std::strerror(errno));
  }
  report("HELD", "udp socket() -> %d (%s)", s, std::strerror(errno));
}
