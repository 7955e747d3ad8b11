// kwb:launch kwb_topk_f32 grid=(rows) block=(256) args=(x, values, indices, rows, cols, k)
// topk f32, cuda: a simple correct kernel (a template to start from: GET /v1/specs/topk). One
// block per row, k rounds: each round the block finds the largest element not taken yet (ties to
// the lowest column) by a fixed-order reduction in shared memory and writes it. An element is
// taken when it is larger than the last one written, or equal to it at a higher column. Slow for
// large k (k passes over the row), obviously correct.
__device__ bool before(float a, long long ia, float b, long long ib) {  // a ranks before b
  return a > b || (a == b && ia < ib);
}

extern "C" __global__ void kwb_topk_f32(const float* x, float* values, int* indices, long long rows, long long cols,
                                        long long k) {
  __shared__ float best_v[256];
  __shared__ long long best_i[256];
  const float* row = x + (long long)blockIdx.x * cols;
  float last_v = 0.0f;
  long long last_i = -1;  // nothing written yet
  for (long long j = 0; j < k; ++j) {
    float v = 0.0f;
    long long vi = -1;
    for (long long c = threadIdx.x; c < cols; c += blockDim.x) {
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
        const long long oi = best_i[threadIdx.x + half];
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
      values[(long long)blockIdx.x * k + j] = last_v;
      indices[(long long)blockIdx.x * k + j] = (int)last_i;
    }
    __syncthreads();
  }
}
