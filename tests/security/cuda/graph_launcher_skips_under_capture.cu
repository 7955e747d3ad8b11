// kwb-expect: op=vector_add status=rejected reason="empty graph: no kernel node" args="--bench n1M"
// Cheat: the entry launches its kernel only when its stream is not being captured, so a CUDA graph
// captured from it holds nothing (docs/cuda.md "CUDA graphs": an empty graph is refused).
#include <cstdint>
#include <cuda_runtime.h>

__global__ void vadd(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    c[i] = a[i] + b[i];
}

extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n, cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &status) == cudaSuccess && status != cudaStreamCaptureStatusNone) return;
  if (n <= 0) return;
  int64_t blocks = (n + 255) / 256;
  if (blocks > 132 * 16) blocks = 132 * 16;
  vadd<<<unsigned(blocks), 256, 0, stream>>>(a, b, c, n);
}
