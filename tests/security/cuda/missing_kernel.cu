// kwb-expect: op=vector_add status=rejected reason="not found in the compiled module"
// The kernel has C++ linkage, so its symbol is mangled and the plan's name is not in the module.
// kwb:launch vadd grid=(ceil_div(n, 256)) block=(256) args=(a, b, c, n)
__global__ void vadd(const float* a, const float* b, float* c, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
