// kwb-expect: op=vector_add status=compile_error reason="is not allowed for cuda candidates" args="--flag=--include-path=/etc" stage=compile
// Candidate flags may only steer code generation and macros.
// kwb:launch vadd grid=(ceil_div(n, 256)) block=(256) args=(a, b, c, n)
extern "C" __global__ void vadd(const float* a, const float* b, float* c, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
