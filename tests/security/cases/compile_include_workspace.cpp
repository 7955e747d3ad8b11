// kwb-expect: op=vector_add status=compile_error reason="marker.txt: No such file or directory"
// Includes another candidate's files from the workspace, by absolute path and relative to the job
// directory.
#include "@WORKSPACE@/objects/marker.txt"
#include "../objects/marker.txt"
#include <cstdint>
extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
