// kwb-expect: op=vector_add status=crashed reason="HELD: unix"
// AF_UNIX sockets are allowed (programs use them locally), so reach for the host's: an abstract
// socket the test listens on (abstract names belong to the network namespace) and a socket file in
// the host's /tmp (not mounted in the sandbox). @ABSTRACT@ and @UNIX_PATH@ come from the test.
#include <cerrno>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>
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
  const char abstract_name[] = "@ABSTRACT@";
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  if (s < 0) report("LEAKED", "AF_UNIX socket refused: %s (programs need these)", std::strerror(errno));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path + 1, abstract_name, sizeof abstract_name - 1);
  socklen_t len = socklen_t(offsetof(sockaddr_un, sun_path) + 1 + sizeof abstract_name - 1);
  if (connect(s, reinterpret_cast<sockaddr*>(&addr), len) == 0) report("LEAKED", "unix connected to @%s", abstract_name);
  int abstract_errno = errno;
  int s2 = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un path{};
  path.sun_family = AF_UNIX;
  std::strncpy(path.sun_path, "@UNIX_PATH@", sizeof path.sun_path - 1);
  if (connect(s2, reinterpret_cast<sockaddr*>(&path), sizeof path) == 0) report("LEAKED", "unix connected to %s", path.sun_path);
  report("HELD: unix", "abstract: %s, path: %s", std::strerror(abstract_errno), std::strerror(errno));
}
