// kwb-expect: op=vector_add status=incorrect reason="past the end of output c"
// Off-by-one bound: one thread too many writes c[n]. The write lands in the guard zone the
// workbench keeps after every tensor (on the device too: the device buffer mirrors the arena).
// kwb:launch overrun grid=(ceil_div(n + 1, 256)) block=(256) args=(a, b, c, n)
extern "C" __global__ void overrun(const float* a, const float* b, float* c, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
  else if (i == n) c[i] = 0.f;
}
