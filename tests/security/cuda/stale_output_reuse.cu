// kwb-expect: op=vector_add status=incorrect reason="never written"
// Computes on the first launch only and afterwards leaves the output buffer alone, hoping it
// still holds the answer from last time (benchmarks that reuse buffers reward this). The
// workbench poisons every output before every call, so the second call returns poison.
// kwb:launch stale grid=(ceil_div(n, 256)) block=(256) args=(a, b, c, n)
__device__ unsigned char g_done[1 << 22];

extern "C" __global__ void stale(const float* a, const float* b, float* c, long long n) {
  if (g_done[blockIdx.x]) return;
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
  __syncthreads();
  if (threadIdx.x == 0) g_done[blockIdx.x] = 1;
}
