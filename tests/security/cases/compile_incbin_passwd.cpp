// kwb-expect: op=vector_add status=compile_error reason="file not found: /etc/passwd"
// Pulls a host file into the object with the assembler's .incbin (then reads it at run time).
asm(".section .rodata\n.global kwb_stolen\nkwb_stolen:\n.incbin \"/etc/passwd\"\n.byte 0\n.text");
#include <cstdint>
extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
