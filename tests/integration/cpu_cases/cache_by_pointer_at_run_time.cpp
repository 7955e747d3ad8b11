// kwb-expect: op=vector_add status=incorrect reason="cached across calls" env="KWB_LIBCLANG=off"
// With static analysis off, the run-time checks alone must catch the cache (fresh inputs in the same buffers).
// Remembers the output buffer it computed last and skips the work when called again with the
// same pointers (a cheat that pays off when a benchmark reuses buffers).
#include <cstdint>
static const float* last_a = nullptr;
static float* last_c = nullptr;
static int64_t last_n = -1;
extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  static float cache[1 << 16];
  if (a == last_a && c == last_c && n == last_n && n <= (1 << 16)) {
    for (int64_t i = 0; i < n; ++i) c[i] = cache[i];
    return;
  }
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
  if (n <= (1 << 16))
    for (int64_t i = 0; i < n; ++i) cache[i] = c[i];
  last_a = a;
  last_c = c;
  last_n = n;
}
