// kwb-expect: op=vector_add status=incorrect reason="cached across calls"
// Remembers the buffers of the last call and, when called again with the same pointers and
// size, copies its saved result instead of computing (a cache keyed by pointer). The workbench
// keeps buffer addresses but draws new inputs, so the copied result is the previous one.
// kwb:launch cached grid=(1) block=(256) args=(a, b, c, n)
__device__ const float* g_a;
__device__ const float* g_b;
__device__ long long g_n = -1;
__device__ float g_saved[1 << 20];

extern "C" __global__ void cached(const float* a, const float* b, float* c, long long n) {
  const bool hit = g_a == a && g_b == b && g_n == n && n <= (1 << 20);
  for (long long i = threadIdx.x; i < n; i += blockDim.x) {
    if (hit) {
      c[i] = g_saved[i];
    } else {
      c[i] = a[i] + b[i];
      if (n <= (1 << 20)) g_saved[i] = c[i];
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    g_a = a;
    g_b = b;
    g_n = n;
  }
}
