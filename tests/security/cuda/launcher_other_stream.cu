// kwb-expect: op=vector_add status=rejected reason="stream" args="--bench n256M"
// Cheat: the work goes on a stream of its own and the entry returns at once, so events on the
// given stream would time nothing. Static analysis refuses the stream (launcher-streams); where
// analysis is unavailable, the runner finds the device still busy after the given stream is done.
#include <cstdint>
#include <cuda_runtime.h>

__global__ void vadd(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    c[i] = a[i] + b[i];
}

extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n, cudaStream_t stream) {
  (void)stream;
  cudaStream_t mine;
  cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking);
  vadd<<<264, 256, 0, mine>>>(a, b, c, n);  // one block per 4 SMs' worth: slow on purpose
}
