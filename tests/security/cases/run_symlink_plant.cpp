// kwb-expect: op=vector_add status=crashed reason="HELD: links"
// Plants links in the job directory for the trusted side to follow later: candidate.so and a
// folder link to a host folder the test watches (@VICTIM@), a hard link, and a replacement of
// candidate.so. The run profile binds /job read-only; the test also checks the victim is intact.
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <stdio.h>
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
#include <sys/stat.h>

extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  int made = 0;
  made += symlink("/etc/passwd", "/job/candidate.so.link") == 0;
  made += symlink("@VICTIM@", "/job/victim-link") == 0;
  made += symlink("@VICTIM@/precious", "/tmp/kwb-pwn-link") == 0 && rename("/tmp/kwb-pwn-link", "/job/candidate.so") == 0;
  made += unlink("/job/candidate.so") == 0;
  made += link("/usr/bin/env", "/job/env-hardlink") == 0;
  made += mkdir("/job/sub", 0755) == 0;
  if (made) report("LEAKED", "%d links or changes made in /job", made);
  report("HELD: links", "the job directory refused every change (%s)", std::strerror(errno));
}
