// kwb-expect: op=vector_add status=accepted reason="correct on"
// Honest and simple: one thread per element.
// kwb:launch vadd grid=(ceil_div(n, 256)) block=(256) args=(a, b, c, n)
extern "C" __global__ void vadd(const float* a, const float* b, float* c, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
