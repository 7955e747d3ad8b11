// kwb-expect: op=vector_add status=compile_error reason="cannot open source file" stage=compile
// Tries to read a host file into the compile (and so into its diagnostics). NVRTC runs in the
// compile sandbox, which has no /etc.
// kwb:launch vadd grid=(ceil_div(n, 256)) block=(256) args=(a, b, c, n)
#include "/etc/shadow"
extern "C" __global__ void vadd(const float* a, const float* b, float* c, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
