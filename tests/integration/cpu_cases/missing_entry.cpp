// kwb-expect: op=vector_add status=rejected reason="entry point 'kwb_vector_add_f32' not found"
// Declares the entry with C++ linkage: the symbol is mangled and cannot be found.
#include <cstdint>
void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
