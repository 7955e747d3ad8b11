// kwb-expect: op=vector_add status=crashed reason="HELD: environ" absent="/jobs/"
// Looks for the evaluating process's secrets in every environment and command line it can see in
// /proc (pid 1 inside is bwrap's init, started with an empty environment), and prints what it
// found: the test asserts its secret (KWB_TEST_SECRET in kwb's environment) is not there, and
// that bwrap's command line (pid 1's) does not show the host path of the job folder.
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <string>

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
  std::string seen;
  int processes = 0;
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      ++processes;
      for (const char* what : {"environ", "cmdline"}) {
        std::string path = std::string("/proc/") + e->d_name + "/" + what;
        int fd = open(path.c_str(), O_RDONLY);
        if (fd < 0) continue;
        char buf[4096];
        ssize_t got = read(fd, buf, sizeof buf);
        close(fd);
        for (ssize_t i = 0; i < got; ++i) seen += buf[i] ? buf[i] : ' ';
        seen += " | ";
      }
    }
    closedir(d);
  }
  if (seen.find("KWB_TEST_SECRET") != std::string::npos || seen.find("kwb-secret-") != std::string::npos)
    report("LEAKED", "%s", seen.c_str());
  report("HELD: environ", "%d processes visible; their environments and command lines: %.300s", processes,
         seen.c_str());
}
