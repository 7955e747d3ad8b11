// kwb-expect: op=vector_add status=sandbox_violation reason="seccomp filter" args="--bench n1M"
// Issue 15 #13: a cuda-launcher whose host code forks 64 sleepers (they would outlive the call and
// hold the process limit), then launches a correct kernel. The strict filter of candidate runs,
// now on the GPU runner as on the CPU one, kills it at the first fork (clone without
// CLONE_THREAD): a candidate has no business starting processes.
#include <unistd.h>

#include <cstdint>
#include <cuda_runtime.h>

__global__ void vadd(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    c[i] = a[i] + b[i];
}

extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n, cudaStream_t stream) {
  static bool forked = false;
  if (!forked) {
    forked = true;
    for (int i = 0; i < 64; ++i) {
      pid_t p = fork();
      if (p == 0) {
        sleep(600);
        _exit(0);
      }
    }
  }
  if (n > 0) vadd<<<264, 256, 0, stream>>>(a, b, c, n);
}
