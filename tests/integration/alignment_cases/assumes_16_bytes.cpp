// vector_add f32 that stores 16-byte vectors through a cast without looking at the pointers:
// right where the tensors happen to be 16-byte aligned, a fault where they are only 4-byte
// aligned, as vector_add's spec guarantees (docs/specs.md "Alignment"). test_alignment.cpp.
#include <immintrin.h>

#include <cstdint>

extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    *reinterpret_cast<__m128*>(c + i) = _mm_add_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i));
  for (; i < n; ++i) c[i] = a[i] + b[i];
}
