// kwb-expect: op=vector_add status=rejected reason="plan_unknown_argument.cu:4: kwb:launch: unknown argument 'd'" stage=compile
// The launch plan passes a tensor the spec does not have; the error names the line.
//
// kwb:launch vadd grid=(ceil_div(n, 256)) block=(256) args=(a, b, d, n)
extern "C" __global__ void vadd(const float* a, const float* b, float* c, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
