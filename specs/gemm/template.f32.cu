// kwb:variant f32
// kwb:launch kwb_gemm_f32 grid=(ceil_div(n, 16), ceil_div(m, 16)) block=(16, 16) args=(a, b, c, m, n, k)
// gemm f32, cuda: a simple correct kernel (a template to start from: GET /v1/specs/gemm).
// C = A * B row-major (A m x k, B k x n): one thread per element of C, accumulating over k in f32
// in order. Neighbouring threads read neighbouring columns of B (coalesced); tiling A and B in
// shared memory is the first step to a fast kernel.
extern "C" __global__ void kwb_gemm_f32(const float* a, const float* b, float* c, long long m, long long n, long long k) {
  const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= m || j >= n) return;
  float acc = 0.0f;
  for (long long p = 0; p < k; ++p) acc += a[i * k + p] * b[p * n + j];
  c[i * n + j] = acc;
}
