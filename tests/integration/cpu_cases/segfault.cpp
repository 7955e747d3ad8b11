// kwb-expect: op=vector_add status=crashed reason="SIGSEGV"
#include <cstdint>
extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  volatile float* p = nullptr;
  *p = a[0] + b[0] + float(n);
  c[0] = 0;
}
