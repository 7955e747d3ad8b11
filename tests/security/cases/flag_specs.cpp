// kwb-expect: op=vector_add status=compile_error reason="is not allowed" args="--flag=-specs=/job/candidate.cpp"
// A specs file rewrites the compiler driver's commands. Refused before anything is compiled.
#include <cstdint>
extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
