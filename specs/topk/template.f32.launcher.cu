// topk f32, cuda-launcher: a simple correct launcher (a template to start from: GET /v1/specs/topk).
// The host entry launches one kernel on the given stream and returns; the workbench synchronises
// and times that stream. The kernel is the cuda template's: one block of 256 threads per row, k
// rounds, each taking the largest element not taken yet (ties to the lowest column) by a
// fixed-order reduction in shared memory.
#include <cstdint>
#include <cuda_runtime.h>

namespace {
__device__ bool before(float a, int64_t ia, float b, int64_t ib) {  // a ranks before b
  return a > b || (a == b && ia < ib);
}

__global__ void topk_rows(const float* x, float* values, int32_t* indices, int64_t cols, int64_t k) {
  __shared__ float best_v[256];
  __shared__ int64_t best_i[256];
  const float* row = x + int64_t(blockIdx.x) * cols;
  float last_v = 0.0f;
  int64_t last_i = -1;  // nothing written yet
  for (int64_t j = 0; j < k; ++j) {
    float v = 0.0f;
    int64_t vi = -1;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
      const bool untaken = last_i < 0 || before(last_v, last_i, row[c], c);
      if (untaken && (vi < 0 || before(row[c], c, v, vi))) {
        v = row[c];
        vi = c;
      }
    }
    best_v[threadIdx.x] = v;
    best_i[threadIdx.x] = vi;
    __syncthreads();
    for (int half = 128; half > 0; half >>= 1) {
      if (threadIdx.x < half) {
        const int64_t oi = best_i[threadIdx.x + half];
        if (oi >= 0 && (best_i[threadIdx.x] < 0 || before(best_v[threadIdx.x + half], oi, best_v[threadIdx.x], best_i[threadIdx.x]))) {
          best_v[threadIdx.x] = best_v[threadIdx.x + half];
          best_i[threadIdx.x] = oi;
        }
      }
      __syncthreads();
    }
    last_v = best_v[0];
    last_i = best_i[0];
    if (threadIdx.x == 0) {
      values[int64_t(blockIdx.x) * k + j] = last_v;
      indices[int64_t(blockIdx.x) * k + j] = int32_t(last_i);
    }
    __syncthreads();
  }
}
}  // namespace

extern "C" void kwb_topk_f32(const float* x, float* values, int32_t* indices, int64_t rows, int64_t cols, int64_t k,
                             cudaStream_t stream) {
  if (rows <= 0 || k <= 0) return;  // no element of values or indices
  topk_rows<<<unsigned(rows), 256, 0, stream>>>(x, values, indices, cols, k);  // one block per row
}
