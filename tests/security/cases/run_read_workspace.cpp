// kwb-expect: op=vector_add status=crashed reason="HELD: workspace"
// Reads other candidates' sources and objects in the workspace (the test plants a marker file in
// its workspace's objects/ folder and a fake job folder) by absolute path, relative to /job, and
// through /proc. The test asserts the marker's content never appears in any output.
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
  const char* paths[] = {"@WORKSPACE@/objects/marker.txt", "@WORKSPACE@/jobs/other-candidate/candidate.cpp",
                         "/job/../objects/marker.txt", "/job/../../objects/marker.txt", "../objects/marker.txt",
                         "/proc/1/root@WORKSPACE@/objects/marker.txt", "/proc/self/cwd/../objects/marker.txt",
                         "@WORKSPACE@/kwb.db"};
  for (const char* p : paths) {
    int fd = open(p, O_RDONLY);
    if (fd >= 0) {
      char buf[200] = {};
      ssize_t got = read(fd, buf, sizeof buf - 1);
      report("LEAKED", "read %s (%zd bytes): %s", p, got, buf);
    }
  }
  std::string listing;
  if (DIR* d = opendir("/job/..")) {
    while (dirent* e = readdir(d)) listing += std::string(e->d_name) + " ";
    closedir(d);
  }
  if (listing.find("objects") != std::string::npos || listing.find("kwb.db") != std::string::npos)
    report("LEAKED", "/job/.. lists the workspace: %s", listing.c_str());
  report("HELD: workspace", "no workspace file readable; /job/.. holds: %s", listing.c_str());
}
