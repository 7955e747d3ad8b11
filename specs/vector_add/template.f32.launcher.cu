// vector_add f32, cuda-launcher: the simplest correct launcher (a template to start from:
// GET /v1/specs/vector_add). The host entry launches one grid-stride kernel on the given stream
// and returns; the workbench synchronises and times that stream.
#include <cstdint>
#include <cuda_runtime.h>

namespace {
__global__ void add(const float* a, const float* b, float* c, int64_t n) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
}
}  // namespace

extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  const int64_t blocks = (n + 255) / 256 < 65535 ? (n + 255) / 256 : 65535;
  add<<<unsigned(blocks), 256, 0, stream>>>(a, b, c, n);
}
