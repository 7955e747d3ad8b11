// kwb-expect: op=vector_add status=crashed reason="HELD: env"
// Prints its whole environment: the runner's environment is set by the workbench alone, so the
// secret in kwb's environment must not be there (the test checks every output for it).
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
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
  std::string all;
  for (char** e = environ; *e; ++e) all += std::string(*e) + "; ";
  if (all.find("KWB_TEST_SECRET") != std::string::npos) report("LEAKED", "%s", all.c_str());
  report("HELD: env", "%s", all.c_str());
}
