// GPU reference of the broken-spec case gpu_reference_bad_plan: y = x, as doubles.
extern "C" __global__ void copy_reference(const float* x, double* y, long long rows, long long cols) {
  long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < rows * cols) y[i] = double(x[i]);
}
