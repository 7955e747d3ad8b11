// kwb-expect: op=vector_add status=sandbox_violation reason="figures were forged" args="--bench n1M"
// Issue 15 #12 for cuda-launchers: the host code shares kwb-gpu-runner's process, so it can patch
// the driver's cuEventElapsedTime to report 0.1 ms for a kernel that takes over 2 ms (correct
// results, a deliberately slow kernel). The workbench brackets every launcher sample with its own
// clock (docs/security.md "Trusted GPU timing"): figures far below that window are forged.
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>

#define KWB_CASE_STR2(x) #x
#define KWB_CASE_STR(x) KWB_CASE_STR2(x)

__device__ uint64_t global_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void vadd_slow(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    c[i] = a[i] + b[i];
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    uint64_t until = global_ns() + 2'000'000;  // 2 ms
    while (global_ns() < until) {
    }
  }
}

static void patch(void* fn, float forged_ms) {
  const long page = sysconf(_SC_PAGESIZE);
  uintptr_t start = reinterpret_cast<uintptr_t>(fn) & ~uintptr_t(page - 1);
  if (mprotect(reinterpret_cast<void*>(start), size_t(2 * page), PROT_READ | PROT_WRITE | PROT_EXEC) != 0) return;
  // mov eax, imm32; mov [rdi], eax; xor eax, eax; ret   (*pMilliseconds = forged; return CUDA_SUCCESS)
  unsigned char code[] = {0xB8, 0, 0, 0, 0, 0x89, 0x07, 0x31, 0xC0, 0xC3};
  std::memcpy(code + 1, &forged_ms, 4);
  std::memcpy(fn, code, sizeof code);
  mprotect(reinterpret_cast<void*>(start), size_t(2 * page), PROT_READ | PROT_EXEC);
}

static void forge_event_times() {
  static bool done = false;
  if (done) return;
  done = true;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!lib) return;
  const char* names[] = {KWB_CASE_STR(cuEventElapsedTime), "cuEventElapsedTime", "cuEventElapsedTime_v2"};
  void* patched[3] = {};
  for (int i = 0; i < 3; ++i) {
    void* fn = dlsym(lib, names[i]);
    if (!fn || fn == patched[0] || fn == patched[1]) continue;
    patch(fn, 0.1f);
    patched[i] = fn;
  }
}

extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n, cudaStream_t stream) {
  forge_event_times();
  if (n > 0) vadd_slow<<<264, 256, 0, stream>>>(a, b, c, n);
}
