// kwb-expect: op=vector_add status=compile_error reason="compile_error.cu:8:" diagnostic="compile_error.cu:8:" stage=compile
// A type error: NVRTC's message names the file, line and column.
// kwb:launch vadd grid=(ceil_div(n, 256)) block=(256) args=(a, b, c, n)
extern "C" __global__ void vadd(const float* a, const float* b, float* c, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float sum = a[i] + b[i];
    c[i] = undeclared_name * sum;
  }
}
