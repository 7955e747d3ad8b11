// kwb-expect: op=vector_add status=sandbox_violation reason="seccomp filter" also="socket"
// Candidate runs get the strict seccomp filter (issue 15 #13): the first non-AF_UNIX socket() kills
// the runner and the verdict names the call; the network namespace would have held anyway.
// Raw IP, packet and netlink sockets (sniffing, crafting packets, reconfiguring interfaces).
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <linux/netlink.h>
#include <netinet/in.h>
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
  struct { int domain, type, protocol; const char* name; } kinds[] = {
      {AF_INET, SOCK_RAW, IPPROTO_ICMP, "raw icmp"}, {AF_PACKET, SOCK_RAW, 0, "packet"},
      {AF_NETLINK, SOCK_RAW, NETLINK_ROUTE, "netlink route"}, {AF_INET6, SOCK_DGRAM, 0, "udp6"}};
  for (auto& k : kinds) {
    errno = 0;
    if (socket(k.domain, k.type, k.protocol) >= 0) report("LEAKED", "%s socket created", k.name);
  }
  report("HELD: raw", "raw, packet, netlink and inet6 sockets refused (%s)", std::strerror(errno));
}
