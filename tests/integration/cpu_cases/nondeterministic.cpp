// kwb-expect: op=vector_add status=rejected reason="mutable-global-state" diagnostic="nondeterministic.cpp:8:"
// Every other call perturbs one element by one ulp: within tolerance, but not reproducible.
#include <cmath>
#include <cstdint>
static int calls = 0;
extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
  if (++calls % 2 == 0) c[n / 2] = std::nextafter(c[n / 2], INFINITY);
}
