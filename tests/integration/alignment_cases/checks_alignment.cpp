// vector_add f32 with the same 16-byte vectors, taken only once `c` is aligned (a scalar head
// until it is): right at any 4-byte alignment. test_alignment.cpp.
#include <immintrin.h>

#include <cstdint>

extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  int64_t i = 0;
  for (; i < n && (reinterpret_cast<uintptr_t>(c + i) & 15) != 0; ++i) c[i] = a[i] + b[i];
  for (; i + 4 <= n; i += 4)
    *reinterpret_cast<__m128*>(c + i) = _mm_add_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i));
  for (; i < n; ++i) c[i] = a[i] + b[i];
}
