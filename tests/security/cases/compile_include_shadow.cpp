// kwb-expect: op=vector_add status=compile_error reason="/etc/shadow: No such file or directory"
// Includes a host file by absolute path: the compiler runs in the sandbox, where /etc does not
// exist.
#include "/etc/shadow"
#include <cstdint>
extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
