// kwb:launch kwb_vector_add_f32 grid=(max(1, min(ceil_div(n, 256), 65535))) block=(256) args=(a, b, c, n)
// vector_add f32, cuda: the simplest correct kernel (a template to start from: GET /v1/specs/vector_add).
// A grid-stride loop: any n works with at most 65535 blocks of 256 threads.
extern "C" __global__ void kwb_vector_add_f32(const float* a, const float* b, float* c, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
}
