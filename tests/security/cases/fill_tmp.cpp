// kwb-expect: op=vector_add status=crashed reason="HELD: tmp"
// Fills /tmp (a private tmpfs of 64 MiB in the run profile) in files of up to the file size limit,
// then tries /dev/shm and the job dir.
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <fcntl.h>
#include <signal.h>
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
  static char block[1 << 20];
  std::memset(block, 'x', sizeof block);
  signal(SIGXFSZ, SIG_IGN);  // past the file size limit write() fails with EFBIG: go on in a new file
  size_t total = 0;
  for (int file = 0; file < 64; ++file) {
    char name[64];
    std::snprintf(name, sizeof name, "/tmp/kwb-pwn-fill-%d", file);
    int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) break;
    ssize_t w;
    while ((w = write(fd, block, sizeof block)) > 0) {
      total += size_t(w);
      if (total > (256u << 20)) report("LEAKED", "wrote %zu MiB to /tmp", total >> 20);
    }
    close(fd);
    if (errno != EFBIG) break;
  }
  int tmp_errno = errno;
  for (const char* p : {"/dev/shm/kwb-pwn-fill", "/job/kwb-pwn-fill"}) {
    int f = open(p, O_WRONLY | O_CREAT, 0644);
    if (f >= 0 && write(f, block, sizeof block) > 0) report("LEAKED", "wrote to %s", p);
  }
  report("HELD: tmp", "/tmp full after %zu MiB (%s)", total >> 20, std::strerror(tmp_errno));
}
