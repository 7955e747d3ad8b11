// kwb-expect: op=vector_add status=compile_error reason="environ"
// Includes the compiler's own environment: it holds only what the workbench set (PATH, LANG,
// HOME, TMPDIR), never the evaluator's (the test checks its secret is in no output). procfs files
// report size 0, so the preprocessor reads nothing; the static_assert makes the outcome visible.
#include "/proc/self/environ"
static_assert(false, "kwb: the include of /proc/self/environ above gave nothing to compile");
#include <cstdint>
extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
