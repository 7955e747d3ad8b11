// transpose f32, cuda-launcher: the simplest correct launcher (a template to start from:
// GET /v1/specs/transpose). The host entry launches one kernel on the given stream and returns;
// the workbench synchronises and times that stream. The kernel is the cuda template's: a
// grid-stride loop over x's elements in order, y[c * rows + r] = x[r * cols + c] (coalesced reads,
// scattered writes: a shared-memory tile makes both coalesced).
#include <cstdint>
#include <cuda_runtime.h>

namespace {
__global__ void transpose_copy(const float* x, float* y, int64_t rows, int64_t cols) {
  const int64_t total = rows * cols, stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    const int64_t r = i / cols, c = i % cols;
    y[c * rows + r] = x[i];
  }
}
}  // namespace

extern "C" void kwb_transpose_f32(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;  // no element of y
  const int64_t tiles = (rows * cols + 255) / 256;
  transpose_copy<<<unsigned(tiles < 65535 ? tiles : 65535), 256, 0, stream>>>(x, y, rows, cols);
}
