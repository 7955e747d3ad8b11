// kwb-expect: op=vector_add status=incorrect reason="after a CUDA graph replay" args="--bench n1M"
// Cheat: under stream capture the entry launches a kernel that writes nothing, so the graph is
// not empty but does nothing when replayed; eager launches are correct (docs/cuda.md "CUDA
// graphs": the replay's outputs are verified).
#include <cstdint>
#include <cuda_runtime.h>

__global__ void vadd(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    c[i] = a[i] + b[i];
}

__global__ void idle(float*) {}

extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n, cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &status) == cudaSuccess && status != cudaStreamCaptureStatusNone) {
    idle<<<1, 32, 0, stream>>>(c);
    return;
  }
  if (n <= 0) return;
  int64_t blocks = (n + 255) / 256;
  if (blocks > 132 * 16) blocks = 132 * 16;
  vadd<<<unsigned(blocks), 256, 0, stream>>>(a, b, c, n);
}
